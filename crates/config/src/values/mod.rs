//! Value parsers: pure functions from the text of one option value to a typed value.
//!
//! They know nothing about options or jobs; errors are short phrases ("malformed size
//! '4q'") that the caller wraps with the option, job and location.
//!
//! Behaviour follows fio 3.33 as observed with `fio --debug=parse`, except where fio
//! silently produces garbage (trailing junk like `4k4`, fractions like `1.5m`, which fio
//! truncates to 1): those are errors here.

pub mod arith;
pub mod dist;
pub mod list;
pub mod pattern;
pub mod size;
pub mod split;
pub mod suffix;
pub mod time;

pub use arith::{eval, Unit};
pub use dist::parse_distribution;
pub use list::{
    parse_bool, parse_cpus, parse_float_list, parse_int, parse_list, parse_range,
    parse_size_or_range, per_direction,
};
pub use pattern::parse_pattern;
pub use size::{parse_size, parse_size_or_percent};
pub use split::parse_bssplit;
pub use time::{parse_time, parse_time_range, TimeUnit};
