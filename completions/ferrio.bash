# bash completion for ferrio. Generated from ferrio's option and flag tables by
# ferrio_config::extras (crates/config/src/extras/bash.rs): do not edit.
# Installed by `ferrio --install-extras DIR` as
# DIR/share/bash-completion/completions/ferrio; or source it from ~/.bashrc.

_ferrio_words='
    --name= --output-format= --output= --minimal --append-terse
    --append-terse= --terse-version= --eta= --eta-interval= --eta-newline=
    --status-interval= --json-lines --interval-percentiles= --sweep=
    --repeat= --settle= --cv-limit= --html= --prometheus=
    --prometheus-linger= --compare --section= --readonly --parse-only
    --merge-blktrace-only --showcmd --cmdhelp --cmdhelp= --enghelp --enghelp=
    --debug= --bandwidth-log --trigger-file= --trigger-timeout= --trigger=
    --trigger-remote= --idle-prof= --max-jobs= --alloc-size= --warnings-fatal
    --aux-path= --cpuclock-test --clock-bench --install-extras= --memcpytest
    --memcpytest= --version --help --server --server= --client=
    --remote-config= --auth-token-file= --tls-cert= --tls-key= --tls-ca=
    --tls-client-ca= --tls-client-cert= --tls-client-key= --server-allow=
    --server-enable= --server-max-jobs= --server-max-job-size= --server-once
    --server-stdio --mpi --client-timeout= --ssh-config= --ssh-command=
    --inflate-log= --crctest --crctest= --profile= --daemonize= --pidfile=
    --description= --filename= --directory= --filetype= --filename_format=
    --nrfiles= --nr_files= --size= --filesize= --io_size= --io_limit=
    --offset= --fileoffset= --offset_increment= --offset_align= --number_ios=
    --fill_device= --fill_fs= --direct= --buffered= --sync= --fsync=
    --fdatasync= --sync_file_range= --end_fsync= --end_syncfs=
    --fsync_on_close= --create_on_open= --create_only= --allow_file_create=
    --allow_mounted_write= --overwrite= --unlink= --fallocate= --invalidate=
    --rw= --readwrite= --rw_sequencer= --serialize_overlap= --rwmixread=
    --rwmixwrite= --rwmixcycle= --bs= --blocksize= --bsrange=
    --blocksize_range= --bssplit= --blockalign= --ba= --bs_unaligned
    --bs_unaligned= --blocksize_unaligned --blocksize_unaligned=
    --bs_is_seq_rand= --ioengine= --iodepth= --hipri --hipri= --sim_lat=
    --sim_channels= --sim_bw= --sim_seed= --sim_ssd --sim_ssd=
    --sim_capacity= --sim_spare= --sim_prefill= --sim_gc_bw= --sim_stall=
    --sim_delay= --sim_buffers= --sim_buf_cache= --hostname= --port=
    --protocol= --proto= --nodelay= --listen --listen= --pingpong --pingpong=
    --interface= --ttl= --window_size= --mss= --net_timeout= --uri=
    --zonemode= --zonesize= --zonecapacity= --zonerange= --zoneskip=
    --read_beyond_wp= --max_open_zones= --job_max_open_zones=
    --ignore_zone_limits= --zone_reset_threshold= --recover_zbd_write_error=
    --write_zone_remainder= --zone_reset_frequency= --sim_zonesize=
    --sim_zonecap= --sim_max_open_zones= --sim_max_active_zones=
    --sim_conv_zones= --unique_filename= --create_serialize= --openfiles=
    --stat_type= --cpuload= --cpuchunks= --cpumode= --exit_on_io_done=
    --program= --arguments= --grace_time= --std_redirect= --donorname=
    --inplace= --iodepth_batch= --iodepth_batch_submit=
    --iodepth_batch_complete_min= --iodepth_batch_complete=
    --iodepth_batch_complete_max= --iodepth_low= --fixedbufs --fixedbufs=
    --registerfiles --registerfiles= --sqthread_poll --sqthread_poll=
    --sqthread_poll_cpu= --nonvectored= --force_async= --userspace_reap
    --userspace_reap= --libaio_vectored= --hipri_percentage= --nowait= --mem=
    --iomem= --iomem_align= --mem_align= --hugepage-size=
    --cpus_allowed_policy= --cmdprio_percentage= --cmdprio_class= --cmdprio=
    --cmdprio_hint= --cmdprio_bssplit= --priohint= --uncached= --numjobs=
    --thread --thread= --threads --threads= --group_reporting
    --group_reporting= --stonewall --stonewall= --wait_for_previous
    --wait_for_previous= --new_group --new_group= --wait_for= --exitall
    --exitall= --time_based --time_based= --runtime= --timeout= --ramp_time=
    --ramp_size= --startdelay= --loops= --steadystate= --ss=
    --steadystate_duration= --ss_dur= --steadystate_ramp_time= --ss_ramp=
    --steadystate_check_interval= --ss_interval= --rate= --rate_min=
    --ratemin= --rate_iops= --rate_iops_min= --rate_process= --rate_cycle=
    --ratecycle= --rate_ignore_thinktime= --thinkcycles= --thinktime=
    --thinktime_spin= --thinktime_blocks= --thinktime_blocks_type=
    --thinktime_iotime= --due_lat= --latency_target= --latency_window=
    --latency_percentile= --latency_run= --max_latency= --flow_id= --flow=
    --flow_sleep= --flow_watermark= --pacer_period= --pacer_tune=
    --pacer_step= --io_submit_mode= --randrepeat= --allrandrepeat=
    --randseed= --fio_seeds= --file_service_type= --norandommap
    --norandommap= --random_generator= --random_distribution=
    --random_sequence_stride= --percentage_sequential= --percentage_random=
    --sprandom= --spr_op= --spr_num_regions= --spr_cs= --zero_buffers
    --zero_buffers= --refill_buffers --refill_buffers= --scramble_buffers=
    --buffer_pattern= --buffer_compress_percentage= --buffer_compress_chunk=
    --dedupe_percentage= --dedupe_global= --dedupe_mode=
    --dedupe_working_set_percentage= --unified_rw_reporting=
    --percentile_list= --clat_percentiles= --lat_percentiles=
    --slat_percentiles= --disable_lat= --disable_clat= --disable_slat=
    --gtod_reduce= --bwavgtime= --iopsavgtime= --kb_base= --unit_base=
    --significant_figures= --disk_util= --job_start_clock_id= --clocksource=
    --cpus_allowed= --comm= --nice= --exec_prerun= --exec_postrun= --prio=
    --prioclass= --fadvise_hint= --write_hint= --pre_read= --read_iolog=
    --replay_no_stall= --replay_redirect= --replay_scale= --replay_align=
    --replay_time_scale= --replay_skip= --read_iolog_chunked= --write_iolog=
    --write_bw_log= --write_iops_log= --write_lat_log= --write_hist_log=
    --log_avg_msec= --log_hist_msec= --log_hist_coarseness=
    --log_window_value= --log_max_value= --log_offset= --log_prio=
    --log_issue_time= --log_unix_epoch= --per_job_logs=
    --merge_blktrace_file= --merge_blktrace_scalars= --merge_blktrace_iters=
    --cgroup= --cgroup_weight= --cgroup_nodelete= --continue_on_error=
    --ignore_error= --error_dump= --exitall_on_error --exitall_on_error=
    --verify= --do_verify= --verify_interval= --verify_offset=
    --verify_pattern= --verify_pattern_interval= --verify_policy=
    --verifysort= --verifysort_nr= --verify_fatal= --verify_dump=
    --verify_async= --verify_async_cpus= --verify_backlog=
    --verify_backlog_batch= --verify_only --verify_only=
    --experimental_verify= --verify_header_seed= --verify_write_sequence=
    --verify_state_save= --verify_state_load= --trim_percentage=
    --trim_verify_zero= --trim_backlog= --trim_backlog_batch=
    --numa_cpu_nodes= --numa_mem_policy= --opendir= --file_append=
    --unlink_each_loop= --stats= --disable_bw_measurement= --disable_bw=
    --lockmem= --uid= --gid= --cpumask= --exit_what= --log_alternate_epoch=
    --log_alternate_epoch_clock_id= --ioscheduler= --lockfile=
    --write_barrier= --log_entries= --atomic= --block_error_percentiles=
    --log_compression= --log_compression_cpus= --log_store_compressed= --thp=
    --gtod_cpu= --readfua= --writefua= --sg_write_mode= --stream_id=
    --bindname= --verb= --serverip= --direct_write_to_pmem=
    --busy_wait_polling= --clustername= --pool= --clientname= --conf=
    --busy_poll= --touch_objects= --rbdname= --rbd_encryption_format=
    --rbd_encryption_passphrase= --volume= --brick= --single-instance=
    --skip_bad= --https= --http_host= --http_user= --http_pass=
    --http_s3_key= --http_s3_keyid= --http_s3_security_token=
    --http_swift_auth_token= --http_s3_region= --http_s3_sse_customer_key=
    --http_s3_sse_customer_algorithm= --http_s3_storage_class= --http_mode=
    --http_verbose= --http_object_mode= --nfs_url= --libblkio_driver=
    --libblkio_path= --libblkio_pre_connect_props= --libblkio_num_entries=
    --libblkio_queue_size= --libblkio_pre_start_props= --libblkio_vectored
    --libblkio_vectored= --libblkio_write_zeroes_on_trim
    --libblkio_write_zeroes_on_trim= --libblkio_wait_mode=
    --libblkio_force_enable_completion_eventfd
    --libblkio_force_enable_completion_eventfd= --xnvme_be= --xnvme_mem=
    --xnvme_async= --xnvme_sync= --xnvme_admin= --xnvme_dev_nsid=
    --xnvme_dev_subnqn= --xnvme_iovec --xnvme_iovec= --md_per_io_size=
    --pi_act= --pi_chk= --apptag= --apptag_mask= --cmd_type= --write_mode=
    --verify_mode= --cdb_len= --verify_bytchk= --read_mode= --deac= --fdp=
    --dataplacement= --data_placement= --plid_select= --fdp_pli_select=
    --plids= --fdp_pli= --dp_scheme= --num_range= --cont= --chunk_size=
    --object_class= --svcl= --gpu_dev_ids= --cuda_io= --rocm_io= --namenode=
    --hdfsdirectory= --single_instance= --hdfs_use_direct= --initiator=
    --gpu_dev_id= --create_fsync= --softrandommap=
'

# Options and flags whose value may be the next word (`--rw read`).
_ferrio_next='
    name output-format output terse-version eta eta-interval eta-newline
    status-interval interval-percentiles sweep repeat settle cv-limit html
    prometheus prometheus-linger section debug trigger-file trigger-timeout
    trigger trigger-remote idle-prof max-jobs alloc-size aux-path
    install-extras client remote-config auth-token-file tls-cert tls-key
    tls-ca tls-client-ca tls-client-cert tls-client-key server-allow
    server-enable server-max-jobs server-max-job-size client-timeout
    ssh-config ssh-command inflate-log profile daemonize pidfile description
    filename directory filetype filename_format nrfiles nr_files size
    filesize io_size io_limit offset fileoffset offset_increment offset_align
    number_ios fill_device fill_fs direct buffered sync fsync fdatasync
    sync_file_range end_fsync end_syncfs fsync_on_close create_on_open
    create_only allow_file_create allow_mounted_write overwrite unlink
    fallocate invalidate rw readwrite rw_sequencer serialize_overlap
    rwmixread rwmixwrite rwmixcycle bs blocksize bsrange blocksize_range
    bssplit blockalign ba bs_is_seq_rand ioengine iodepth sim_lat
    sim_channels sim_bw sim_seed sim_capacity sim_spare sim_prefill sim_gc_bw
    sim_stall sim_delay sim_buffers sim_buf_cache hostname port protocol
    proto nodelay interface ttl window_size mss net_timeout uri zonemode
    zonesize zonecapacity zonerange zoneskip read_beyond_wp max_open_zones
    job_max_open_zones ignore_zone_limits zone_reset_threshold
    recover_zbd_write_error write_zone_remainder zone_reset_frequency
    sim_zonesize sim_zonecap sim_max_open_zones sim_max_active_zones
    sim_conv_zones unique_filename create_serialize openfiles stat_type
    cpuload cpuchunks cpumode exit_on_io_done program arguments grace_time
    std_redirect donorname inplace iodepth_batch iodepth_batch_submit
    iodepth_batch_complete_min iodepth_batch_complete
    iodepth_batch_complete_max iodepth_low sqthread_poll_cpu nonvectored
    force_async libaio_vectored hipri_percentage nowait mem iomem iomem_align
    mem_align hugepage-size cpus_allowed_policy cmdprio_percentage
    cmdprio_class cmdprio cmdprio_hint cmdprio_bssplit priohint uncached
    numjobs wait_for runtime timeout ramp_time ramp_size startdelay loops
    steadystate ss steadystate_duration ss_dur steadystate_ramp_time ss_ramp
    steadystate_check_interval ss_interval rate rate_min ratemin rate_iops
    rate_iops_min rate_process rate_cycle ratecycle rate_ignore_thinktime
    thinkcycles thinktime thinktime_spin thinktime_blocks
    thinktime_blocks_type thinktime_iotime due_lat latency_target
    latency_window latency_percentile latency_run max_latency flow_id flow
    flow_sleep flow_watermark pacer_period pacer_tune pacer_step
    io_submit_mode randrepeat allrandrepeat randseed fio_seeds
    file_service_type random_generator random_distribution
    random_sequence_stride percentage_sequential percentage_random sprandom
    spr_op spr_num_regions spr_cs scramble_buffers buffer_pattern
    buffer_compress_percentage buffer_compress_chunk dedupe_percentage
    dedupe_global dedupe_mode dedupe_working_set_percentage
    unified_rw_reporting percentile_list clat_percentiles lat_percentiles
    slat_percentiles disable_lat disable_clat disable_slat gtod_reduce
    bwavgtime iopsavgtime kb_base unit_base significant_figures disk_util
    job_start_clock_id clocksource cpus_allowed comm nice exec_prerun
    exec_postrun prio prioclass fadvise_hint write_hint pre_read read_iolog
    replay_no_stall replay_redirect replay_scale replay_align
    replay_time_scale replay_skip read_iolog_chunked write_iolog write_bw_log
    write_iops_log write_lat_log write_hist_log log_avg_msec log_hist_msec
    log_hist_coarseness log_window_value log_max_value log_offset log_prio
    log_issue_time log_unix_epoch per_job_logs merge_blktrace_file
    merge_blktrace_scalars merge_blktrace_iters cgroup cgroup_weight
    cgroup_nodelete continue_on_error ignore_error error_dump verify
    do_verify verify_interval verify_offset verify_pattern
    verify_pattern_interval verify_policy verifysort verifysort_nr
    verify_fatal verify_dump verify_async verify_async_cpus verify_backlog
    verify_backlog_batch experimental_verify verify_header_seed
    verify_write_sequence verify_state_save verify_state_load trim_percentage
    trim_verify_zero trim_backlog trim_backlog_batch numa_cpu_nodes
    numa_mem_policy opendir file_append unlink_each_loop stats
    disable_bw_measurement disable_bw lockmem uid gid cpumask exit_what
    log_alternate_epoch log_alternate_epoch_clock_id ioscheduler lockfile
    write_barrier log_entries atomic block_error_percentiles log_compression
    log_compression_cpus log_store_compressed thp gtod_cpu readfua writefua
    sg_write_mode stream_id bindname verb serverip direct_write_to_pmem
    busy_wait_polling clustername pool clientname conf busy_poll
    touch_objects rbdname rbd_encryption_format rbd_encryption_passphrase
    volume brick single-instance skip_bad https http_host http_user http_pass
    http_s3_key http_s3_keyid http_s3_security_token http_swift_auth_token
    http_s3_region http_s3_sse_customer_key http_s3_sse_customer_algorithm
    http_s3_storage_class http_mode http_verbose http_object_mode nfs_url
    libblkio_driver libblkio_path libblkio_pre_connect_props
    libblkio_num_entries libblkio_queue_size libblkio_pre_start_props
    libblkio_wait_mode xnvme_be xnvme_mem xnvme_async xnvme_sync xnvme_admin
    xnvme_dev_nsid xnvme_dev_subnqn md_per_io_size pi_act pi_chk apptag
    apptag_mask cmd_type write_mode verify_mode cdb_len verify_bytchk
    read_mode deac fdp dataplacement data_placement plid_select
    fdp_pli_select plids fdp_pli dp_scheme num_range cont chunk_size
    object_class svcl gpu_dev_ids cuda_io rocm_io namenode hdfsdirectory
    single_instance hdfs_use_direct initiator gpu_dev_id create_fsync
    softrandommap
'

# Replies: the words in $1 that start with $_ferrio_val (after its last comma,
# for comma lists), each prefixed with $_ferrio_pre.
_ferrio_reply() {
    local head= tail=$_ferrio_val w
    if [[ $tail == *,* ]]; then
        head=${tail%,*},
        tail=${tail##*,}
    fi
    for w in $1; do
        [[ $w == "$tail"* ]] && COMPREPLY+=("$_ferrio_pre$head$w")
    done
}

_ferrio_paths() {
    local p
    while IFS= read -r p; do
        COMPREPLY+=("$_ferrio_pre$p")
    done < <(compgen "$1" -- "$_ferrio_val")
    compopt -o filenames 2>/dev/null
}

_ferrio_values() {
    case $1 in
        output-format) _ferrio_reply 'normal terse json json+ interval hosts hosts-json hosts-csv' ;;
        output) _ferrio_paths -f ;;
        terse-version) _ferrio_reply '2 3 4 5' ;;
        eta) _ferrio_reply 'auto always never' ;;
        html) _ferrio_paths -f ;;
        cmdhelp) _ferrio_reply 'all name description filename directory filetype filename_format nrfiles size filesize io_size offset offset_increment offset_align number_ios fill_device direct buffered sync fsync fdatasync sync_file_range end_fsync end_syncfs fsync_on_close create_on_open create_only allow_file_create allow_mounted_write overwrite unlink fallocate invalidate readonly rw rw_sequencer serialize_overlap rwmixread rwmixwrite rwmixcycle bs bsrange bssplit blockalign bs_unaligned bs_is_seq_rand ioengine iodepth hipri sim_lat sim_channels sim_bw sim_seed sim_ssd sim_capacity sim_spare sim_prefill sim_gc_bw sim_stall sim_delay sim_buffers sim_buf_cache hostname port protocol nodelay listen pingpong interface ttl window_size mss net_timeout uri zonemode zonesize zonecapacity zonerange zoneskip read_beyond_wp max_open_zones job_max_open_zones ignore_zone_limits zone_reset_threshold recover_zbd_write_error write_zone_remainder zone_reset_frequency sim_zonesize sim_zonecap sim_max_open_zones sim_max_active_zones sim_conv_zones unique_filename create_serialize openfiles stat_type cpuload cpuchunks cpumode exit_on_io_done program arguments grace_time std_redirect donorname inplace iodepth_batch iodepth_batch_complete_min iodepth_batch_complete_max iodepth_low fixedbufs registerfiles sqthread_poll sqthread_poll_cpu nonvectored force_async userspace_reap libaio_vectored hipri_percentage nowait mem iomem_align hugepage-size cpus_allowed_policy cmdprio_percentage cmdprio_class cmdprio cmdprio_hint cmdprio_bssplit priohint uncached numjobs thread group_reporting stonewall new_group wait_for exitall time_based runtime ramp_time ramp_size startdelay loops steadystate steadystate_duration steadystate_ramp_time steadystate_check_interval rate rate_min rate_iops rate_iops_min rate_process rate_cycle rate_ignore_thinktime thinkcycles thinktime thinktime_spin thinktime_blocks thinktime_blocks_type thinktime_iotime due_lat latency_target latency_window latency_percentile latency_run max_latency flow_id flow flow_sleep flow_watermark pacer_period pacer_tune pacer_step io_submit_mode randrepeat allrandrepeat randseed fio_seeds file_service_type norandommap random_generator random_distribution random_sequence_stride percentage_sequential percentage_random sprandom spr_op spr_num_regions spr_cs zero_buffers refill_buffers scramble_buffers buffer_pattern buffer_compress_percentage buffer_compress_chunk dedupe_percentage dedupe_global dedupe_mode dedupe_working_set_percentage unified_rw_reporting percentile_list clat_percentiles lat_percentiles slat_percentiles disable_lat disable_clat disable_slat gtod_reduce bwavgtime iopsavgtime kb_base unit_base significant_figures disk_util job_start_clock_id clocksource cpus_allowed comm nice exec_prerun exec_postrun prio prioclass fadvise_hint write_hint pre_read read_iolog replay_no_stall replay_redirect replay_scale replay_align replay_time_scale replay_skip read_iolog_chunked write_iolog write_bw_log write_iops_log write_lat_log write_hist_log log_avg_msec log_hist_msec log_hist_coarseness log_window_value log_offset log_prio log_issue_time log_unix_epoch per_job_logs merge_blktrace_file merge_blktrace_scalars merge_blktrace_iters profile cgroup cgroup_weight cgroup_nodelete continue_on_error ignore_error error_dump exitall_on_error verify do_verify verify_interval verify_offset verify_pattern verify_pattern_interval verify_policy verifysort verifysort_nr verify_fatal verify_dump verify_async verify_async_cpus verify_backlog verify_backlog_batch verify_only experimental_verify verify_header_seed verify_write_sequence verify_state_save verify_state_load trim_percentage trim_verify_zero trim_backlog trim_backlog_batch numa_cpu_nodes numa_mem_policy opendir file_append unlink_each_loop stats disable_bw_measurement lockmem uid gid cpumask exit_what log_alternate_epoch log_alternate_epoch_clock_id ioscheduler lockfile write_barrier log_entries atomic block_error_percentiles log_compression log_compression_cpus log_store_compressed thp gtod_cpu readfua writefua sg_write_mode stream_id bindname verb serverip direct_write_to_pmem busy_wait_polling clustername pool clientname conf busy_poll touch_objects rbdname rbd_encryption_format rbd_encryption_passphrase volume brick single-instance skip_bad https http_host http_user http_pass http_s3_key http_s3_keyid http_s3_security_token http_swift_auth_token http_s3_region http_s3_sse_customer_key http_s3_sse_customer_algorithm http_s3_storage_class http_mode http_verbose http_object_mode nfs_url libblkio_driver libblkio_path libblkio_pre_connect_props libblkio_num_entries libblkio_queue_size libblkio_pre_start_props libblkio_vectored libblkio_write_zeroes_on_trim libblkio_wait_mode libblkio_force_enable_completion_eventfd xnvme_be xnvme_mem xnvme_async xnvme_sync xnvme_admin xnvme_dev_nsid xnvme_dev_subnqn xnvme_iovec md_per_io_size pi_act pi_chk apptag apptag_mask cmd_type write_mode verify_mode cdb_len verify_bytchk read_mode deac fdp dataplacement plid_select plids dp_scheme num_range cont chunk_size object_class svcl gpu_dev_ids cuda_io rocm_io namenode hdfsdirectory single_instance hdfs_use_direct initiator gpu_dev_id create_fsync softrandommap' ;;
        debug) _ferrio_reply 'process file io mem blktrace verify random parse diskutil job mutex profile time net rate compress steadystate helperthread zbd sprandom all help' ;;
        trigger-file) _ferrio_paths -f ;;
        idle-prof) _ferrio_reply 'system percpu calibrate' ;;
        aux-path) _ferrio_paths -d ;;
        install-extras) _ferrio_paths -d ;;
        auth-token-file) _ferrio_paths -f ;;
        tls-cert) _ferrio_paths -f ;;
        tls-key) _ferrio_paths -f ;;
        tls-ca) _ferrio_paths -f ;;
        tls-client-ca) _ferrio_paths -f ;;
        tls-client-cert) _ferrio_paths -f ;;
        tls-client-key) _ferrio_paths -f ;;
        ssh-config) _ferrio_paths -f ;;
        inflate-log) _ferrio_paths -f ;;
        pidfile) _ferrio_paths -f ;;
        filename) _ferrio_paths -f ;;
        directory) _ferrio_paths -d ;;
        filetype) _ferrio_reply 'none file block char' ;;
        fill_device|fill_fs) _ferrio_reply '0 1' ;;
        direct) _ferrio_reply '0 1' ;;
        buffered) _ferrio_reply '0 1' ;;
        sync) _ferrio_reply 'none sync dsync 0 1' ;;
        end_fsync) _ferrio_reply '0 1' ;;
        end_syncfs) _ferrio_reply '0 1' ;;
        fsync_on_close) _ferrio_reply '0 1' ;;
        create_on_open) _ferrio_reply '0 1' ;;
        create_only) _ferrio_reply '0 1' ;;
        allow_file_create) _ferrio_reply '0 1' ;;
        allow_mounted_write) _ferrio_reply '0 1' ;;
        overwrite) _ferrio_reply '0 1' ;;
        unlink) _ferrio_reply '0 1' ;;
        fallocate) _ferrio_reply 'native none posix keep truncate 0 1' ;;
        invalidate) _ferrio_reply '0 1' ;;
        rw|readwrite) _ferrio_reply 'read write trim randread randwrite randtrim rw readwrite randrw trimwrite randtrimwrite' ;;
        rw_sequencer) _ferrio_reply 'sequential identical' ;;
        serialize_overlap) _ferrio_reply '0 1' ;;
        bs_unaligned|blocksize_unaligned) _ferrio_reply '0 1' ;;
        bs_is_seq_rand) _ferrio_reply '0 1' ;;
        ioengine) _ferrio_reply 'psync sync vsync pvsync pvsync2 null sim io_uring libaio mmap posixaio net netsplice filecreate filestat filedelete dircreate dirstat dirdelete cpuio exec falloc ftruncate e4defrag splice nbd libpmem' ;;
        hipri) _ferrio_reply '0 1' ;;
        sim_ssd) _ferrio_reply '0 1' ;;
        protocol|proto) _ferrio_reply 'tcp tcpv6 udp udpv6 unix vsock' ;;
        nodelay) _ferrio_reply '0 1' ;;
        listen) _ferrio_reply '0 1' ;;
        pingpong) _ferrio_reply '0 1' ;;
        zonemode) _ferrio_reply 'none strided zbd' ;;
        read_beyond_wp) _ferrio_reply '0 1' ;;
        ignore_zone_limits) _ferrio_reply '0 1' ;;
        recover_zbd_write_error) _ferrio_reply '0 1' ;;
        write_zone_remainder) _ferrio_reply '0 1' ;;
        unique_filename) _ferrio_reply '0 1' ;;
        create_serialize) _ferrio_reply '0 1' ;;
        stat_type) _ferrio_reply 'stat lstat statx' ;;
        cpumode) _ferrio_reply 'noop qsort' ;;
        exit_on_io_done) _ferrio_reply '0 1' ;;
        std_redirect) _ferrio_reply '0 1' ;;
        fixedbufs) _ferrio_reply '0 1' ;;
        registerfiles) _ferrio_reply '0 1' ;;
        sqthread_poll) _ferrio_reply '0 1' ;;
        nonvectored) _ferrio_reply '-1 0 1' ;;
        userspace_reap) _ferrio_reply '0 1' ;;
        libaio_vectored) _ferrio_reply '0 1' ;;
        nowait) _ferrio_reply '0 1' ;;
        mem|iomem) _ferrio_reply 'malloc shm shmhuge mmap mmaphuge mmapshared cudamalloc' ;;
        cpus_allowed_policy) _ferrio_reply 'shared split' ;;
        uncached) _ferrio_reply '0 1' ;;
        thread|threads) _ferrio_reply '0 1' ;;
        group_reporting) _ferrio_reply '0 1' ;;
        stonewall|wait_for_previous) _ferrio_reply '0 1' ;;
        new_group) _ferrio_reply '0 1' ;;
        exitall) _ferrio_reply '0 1' ;;
        time_based) _ferrio_reply '0 1' ;;
        steadystate|ss) _ferrio_reply 'iops iops_slope bw bw_slope lat lat_slope' ;;
        rate_process) _ferrio_reply 'linear poisson' ;;
        rate_ignore_thinktime) _ferrio_reply '0 1' ;;
        thinktime_blocks_type) _ferrio_reply 'complete issue' ;;
        due_lat) _ferrio_reply '0 1' ;;
        latency_run) _ferrio_reply '0 1' ;;
        io_submit_mode) _ferrio_reply 'inline offload' ;;
        randrepeat) _ferrio_reply '0 1' ;;
        allrandrepeat) _ferrio_reply '0 1' ;;
        fio_seeds) _ferrio_reply 'latest 3.33' ;;
        file_service_type) _ferrio_reply 'roundrobin sequential random zipf pareto normal' ;;
        norandommap) _ferrio_reply '0 1' ;;
        random_generator) _ferrio_reply 'tausworthe lfsr tausworthe64' ;;
        random_distribution) _ferrio_reply 'random zipf pareto normal zoned zoned_abs sequence' ;;
        random_sequence_stride) _ferrio_reply '0 1' ;;
        sprandom) _ferrio_reply '0 1' ;;
        zero_buffers) _ferrio_reply '0 1' ;;
        refill_buffers) _ferrio_reply '0 1' ;;
        scramble_buffers) _ferrio_reply '0 1' ;;
        dedupe_global) _ferrio_reply '0 1' ;;
        dedupe_mode) _ferrio_reply 'repeat working_set' ;;
        unified_rw_reporting) _ferrio_reply 'none mixed both 0 1 2' ;;
        clat_percentiles) _ferrio_reply '0 1' ;;
        lat_percentiles) _ferrio_reply '0 1' ;;
        slat_percentiles) _ferrio_reply '0 1' ;;
        disable_lat) _ferrio_reply '0 1' ;;
        disable_clat) _ferrio_reply '0 1' ;;
        disable_slat) _ferrio_reply '0 1' ;;
        gtod_reduce) _ferrio_reply '0 1' ;;
        kb_base) _ferrio_reply '1024 1000' ;;
        unit_base) _ferrio_reply '0 8 1' ;;
        disk_util) _ferrio_reply '0 1' ;;
        clocksource) _ferrio_reply 'cpu clock_gettime gettimeofday virtual' ;;
        nice) _ferrio_reply '-20..19' ;;
        fadvise_hint) _ferrio_reply '0 1 random sequential' ;;
        write_hint) _ferrio_reply 'none short medium long extreme' ;;
        pre_read) _ferrio_reply '0 1' ;;
        read_iolog) _ferrio_paths -f ;;
        replay_no_stall) _ferrio_reply '0 1' ;;
        read_iolog_chunked) _ferrio_reply '0 1' ;;
        write_iolog) _ferrio_paths -f ;;
        log_window_value|log_max_value) _ferrio_reply 'avg 0 max 1 both 2' ;;
        log_offset) _ferrio_reply '0 1' ;;
        log_prio) _ferrio_reply '0 1' ;;
        log_issue_time) _ferrio_reply '0 1' ;;
        log_unix_epoch) _ferrio_reply '0 1' ;;
        per_job_logs) _ferrio_reply '0 1' ;;
        cgroup_nodelete) _ferrio_reply '0 1' ;;
        continue_on_error) _ferrio_reply 'none read write io verify all 0 1' ;;
        error_dump) _ferrio_reply '0 1' ;;
        exitall_on_error) _ferrio_reply '0 1' ;;
        verify) _ferrio_reply '0 md5 crc64 crc32 crc32c-intel crc32c crc16 crc7 sha1 sha256 sha512 sha3-224 sha3-256 sha3-384 sha3-512 xxhash meta pattern pattern_hdr null' ;;
        do_verify) _ferrio_reply '0 1' ;;
        verify_policy) _ferrio_reply 'completed fsynced' ;;
        verifysort) _ferrio_reply '0 1' ;;
        verify_fatal) _ferrio_reply '0 1' ;;
        verify_dump) _ferrio_reply '0 1' ;;
        verify_only) _ferrio_reply '0 1' ;;
        experimental_verify) _ferrio_reply '0 1' ;;
        verify_header_seed) _ferrio_reply '0 1' ;;
        verify_write_sequence) _ferrio_reply '0 1' ;;
        verify_state_save) _ferrio_reply '0 1' ;;
        verify_state_load) _ferrio_reply '0 1' ;;
        trim_verify_zero) _ferrio_reply '0 1' ;;
        numa_mem_policy) _ferrio_reply 'default local prefer:N bind:NODES interleave:NODES' ;;
        file_append) _ferrio_reply '0 1' ;;
        unlink_each_loop) _ferrio_reply '0 1' ;;
        stats) _ferrio_reply '0 1' ;;
        disable_bw_measurement|disable_bw) _ferrio_reply '0 1' ;;
        exit_what) _ferrio_reply 'group stonewall all' ;;
        log_alternate_epoch) _ferrio_reply '0 1' ;;
        lockfile) _ferrio_reply 'none exclusive readwrite' ;;
        atomic) _ferrio_reply '0 1' ;;
        block_error_percentiles) _ferrio_reply '0 1' ;;
        log_store_compressed) _ferrio_reply '0 1' ;;
        readfua) _ferrio_reply '0 1' ;;
        writefua) _ferrio_reply '0 1' ;;
        sg_write_mode) _ferrio_reply 'write write_and_verify verify write_same same write_same_ndob verify_bytchk_00 verify_bytchk_01 verify_bytchk_11 write_stream' ;;
        verb) _ferrio_reply 'write read send recv' ;;
        direct_write_to_pmem) _ferrio_reply '0 1' ;;
        busy_wait_polling) _ferrio_reply '0 1' ;;
        busy_poll) _ferrio_reply '0 1' ;;
        touch_objects) _ferrio_reply '0 1' ;;
        single-instance) _ferrio_reply '0 1' ;;
        skip_bad) _ferrio_reply '0 1' ;;
        https) _ferrio_reply 'off on insecure' ;;
        http_mode) _ferrio_reply 'webdav s3 swift' ;;
        http_object_mode) _ferrio_reply 'block range' ;;
        libblkio_vectored) _ferrio_reply '0 1' ;;
        libblkio_write_zeroes_on_trim) _ferrio_reply '0 1' ;;
        libblkio_wait_mode) _ferrio_reply 'block eventfd loop' ;;
        libblkio_force_enable_completion_eventfd) _ferrio_reply '0 1' ;;
        xnvme_iovec) _ferrio_reply '0 1' ;;
        pi_act) _ferrio_reply '0 1' ;;
        cmd_type) _ferrio_reply 'nvme bsg' ;;
        verify_mode) _ferrio_reply 'read compare' ;;
        cdb_len) _ferrio_reply '0 10 16 32' ;;
        verify_bytchk) _ferrio_reply '0 1 3' ;;
        read_mode) _ferrio_reply 'read prefetch' ;;
        deac) _ferrio_reply '0 1' ;;
        fdp) _ferrio_reply '0 1' ;;
        dataplacement|data_placement) _ferrio_reply 'none fdp streams' ;;
        plid_select|fdp_pli_select) _ferrio_reply 'random roundrobin scheme' ;;
        cuda_io) _ferrio_reply 'cufile posix' ;;
        rocm_io) _ferrio_reply 'hipfile posix' ;;
        single_instance) _ferrio_reply '0 1' ;;
        hdfs_use_direct) _ferrio_reply '0 1' ;;
        create_fsync) _ferrio_reply '0 1' ;;
        softrandommap) _ferrio_reply '0 1' ;;
    esac
}

_ferrio() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev= key= w
    local _ferrio_val= _ferrio_pre=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    if [[ $cur == = && $prev == --* ]]; then
        key=$prev
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        key=${COMP_WORDS[COMP_CWORD - 2]} _ferrio_val=$cur
    elif [[ $cur == --*=* ]]; then
        key=${cur%%=*} _ferrio_val=${cur#*=} _ferrio_pre=${cur%%=*}=
    elif [[ $prev == --* && $prev != *=* && " "$_ferrio_next" " == *[[:space:]]"${prev#--}"[[:space:]]* ]]; then
        key=$prev _ferrio_val=$cur
    fi
    if [[ -n $key ]]; then
        [[ $key == --* ]] && _ferrio_values "${key#--}"
        return 0
    fi
    if [[ $cur == -* ]]; then
        # A typo (`--iodeng`) falls back to the longest prefix that matches something
        # (`--iode`), down to two letters after the dashes.
        local try=$cur
        while :; do
            for w in $_ferrio_words; do
                [[ $w == "$try"* ]] && COMPREPLY+=("$w")
            done
            ((${#COMPREPLY[@]} > 0 || ${#try} <= 4)) && break
            try=${try%?}
        done
        if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *= ]]; then
            compopt -o nospace 2>/dev/null
        fi
        return 0
    fi
    # Anything else is a job file.
    _ferrio_val=$cur
    _ferrio_paths -f
    return 0
}

complete -F _ferrio ferrio
