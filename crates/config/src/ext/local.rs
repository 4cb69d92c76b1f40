//! Options of the local engines that are not about moving data: the metadata
//! engines (filestat's stat_type), cpuio (cpuload, cpuchunks, cpumode,
//! exit_on_io_done), exec (program, arguments, grace_time, std_redirect) and
//! e4defrag (donorname, inplace). Each engine reads only its own fields.

/// How filestat and dirstat look a name up (stat_type=).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StatType {
    /// stat(2): follows a symbolic link.
    #[default]
    Stat,
    /// lstat(2): the link itself.
    Lstat,
    /// statx(2) on the absolute path, asking for every field.
    Statx,
}

/// What cpuio burns its CPU time on (cpumode=).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CpuMode {
    /// A busy loop.
    #[default]
    Noop,
    /// Sorting 256 Ki 32-bit integers back and forth (draws more power).
    Qsort,
}

/// The local engines' options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalSpec {
    pub stat_type: StatType,
    /// cpuload=: percent of one CPU to use (0: not given).
    pub cpuload: u32,
    /// cpuchunks=: length of one burn cycle, µs.
    pub cpuchunks_us: u64,
    pub cpumode: CpuMode,
    /// exit_on_io_done=: a cpuio job ends once every I/O job has.
    pub exit_on_io_done: bool,
    /// program=: what exec runs.
    pub program: Option<String>,
    /// arguments=: its arguments, split at spaces; %r is the runtime in seconds, %n
    /// the job's name.
    pub arguments: Option<String>,
    /// grace_time=: seconds between SIGTERM and SIGKILL at the job's end.
    pub grace_time_s: u64,
    /// std_redirect=: the program's stdout/stderr go to JOB.stdout / JOB.stderr.
    pub std_redirect: bool,
    /// donorname=: e4defrag's donor file (in the job's directory).
    pub donorname: Option<String>,
    /// inplace=: e4defrag allocates the donor's blocks per I/O and frees them after.
    pub inplace: bool,
    /// openfiles=: files kept open at once (None: all of them).
    pub openfiles: Option<u32>,
    /// unique_filename=: on a server, names in `directory=` start with its address.
    pub unique_filename: bool,
    /// create_serialize=: fio lays the files out before the jobs start (1) or each job
    /// in its own thread (0); ferrio lays out before the start either way.
    pub create_serialize: bool,
}

impl Default for LocalSpec {
    fn default() -> Self {
        LocalSpec {
            stat_type: StatType::Stat,
            cpuload: 0,
            cpuchunks_us: 50_000,
            cpumode: CpuMode::Noop,
            exit_on_io_done: false,
            program: None,
            arguments: None,
            grace_time_s: 1,
            std_redirect: true,
            donorname: None,
            inplace: false,
            openfiles: None,
            unique_filename: true,
            create_serialize: true,
        }
    }
}

impl LocalSpec {
    /// cpuio's think time after each burn cycle, µs: the cycle scaled so that the
    /// cycle is `cpuload` percent of cycle + think (fio's formula).
    pub fn cpu_think_us(&self, cycle_us: u64) -> u64 {
        let load = self.cpuload.clamp(1, 100) as u64;
        cycle_us * (100 - load) / load
    }
}

/// Split exec's arguments as fio does: at spaces, empty pieces dropped, after
/// replacing %r with the runtime in seconds and %n with the job's name.
pub fn expand_arguments(args: &str, runtime_s: u64, job: &str) -> Vec<String> {
    args.replace("%r", &runtime_s.to_string())
        .replace("%n", job)
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_think_time_is_the_idle_share_of_a_cycle() {
        let mut s = LocalSpec {
            cpuload: 50,
            ..Default::default()
        };
        assert_eq!(s.cpu_think_us(50_000), 50_000);
        s.cpuload = 25;
        assert_eq!(s.cpu_think_us(10_000), 30_000);
        s.cpuload = 100;
        assert_eq!(s.cpu_think_us(10_000), 0);
    }

    #[test]
    fn arguments_expand_runtime_and_name_and_split_at_spaces() {
        assert_eq!(
            expand_arguments("  -t %r  --tag=%n ", 10, "job1"),
            vec!["-t", "10", "--tag=job1"]
        );
        assert!(expand_arguments("", 1, "j").is_empty());
    }
}
