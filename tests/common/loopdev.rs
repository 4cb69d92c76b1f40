//! Loop devices for tests: always the kernel's next free device (`losetup -f --show`,
//! which asks LOOP_CTL_GET_FREE), never a fixed number, so test binaries and suites
//! running side by side on one machine do not collide. Between finding a free device
//! and binding the image to it another process may take that device; losetup then
//! fails with "Device or resource busy" (or finds none free for a moment), and we ask
//! again for the next free one.

use std::path::Path;
use std::process::Command;

/// How many times a busy or missing free device is asked for again.
const TRIES: u32 = 10;

/// Binds `image` to the next free loop device and returns its path (`/dev/loopN`), or
/// losetup's reason when it cannot (no root, no losetup, no loop support).
pub fn attach(image: &Path) -> Result<String, String> {
    let mut why = String::new();
    for attempt in 0..TRIES {
        let o = Command::new("losetup")
            .arg("-f")
            .arg("--show")
            .arg(image)
            .output()
            .map_err(|e| format!("losetup: {e}"))?;
        if o.status.success() {
            return Ok(String::from_utf8_lossy(&o.stdout).trim().to_string());
        }
        why = String::from_utf8_lossy(&o.stderr).trim().to_string();
        if !lost_a_race(&why) {
            break;
        }
        // Another process took the device between losetup's look-up and its bind.
        std::thread::sleep(std::time::Duration::from_millis(
            50 * u64::from(attempt + 1),
        ));
    }
    Err(format!("losetup: {why}"))
}

/// Unbinds a device made by [`attach`] (errors ignored: this runs in `Drop`).
pub fn detach(dev: &str) {
    let _ = Command::new("losetup").args(["-d", dev]).output();
}

/// losetup's messages when a free device was taken by someone else in the meantime.
fn lost_a_race(stderr: &str) -> bool {
    [
        "resource busy",
        "could not find any free loop device",
        "No such device or address",
    ]
    .iter()
    .any(|m| stderr.contains(m))
}
