//! "Did you mean" hints for unknown options: the closest name by edit distance, when
//! it is within half the typed name's length (at least 3) plus one.

use ferrio_config::table::suggest;

#[test]
fn suggestions_up_to_half_the_length_plus_one() {
    // One edit.
    assert_eq!(suggest("iodepht"), Some("iodepth"));
    assert_eq!(suggest("rwmixred"), Some("rwmixread"));
    // "zzw" is two edits from "rw": the limit for 3 letters is 3 / 2 + 1 = 2.
    assert_eq!(suggest("zzw"), Some("rw"));
    // Nothing close: no hint.
    assert_eq!(suggest("qqqqqqqqqqqqqqqqqqqqqq"), None);
}
