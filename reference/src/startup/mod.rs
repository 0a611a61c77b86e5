//! Start-up in stages, low level to high level, as ripgrep turns its flags into a search:
//! [`read`] takes what the command line, the environment, the settings files and the
//! organization's policy say into plain data ([`Inputs`]), refusing what 2.1.235 refuses in the
//! order it refuses it; [`decide`] turns that data into the session's `Config`
//! (who answers, which tools are offered, which credential goes where) without reading anything
//! itself; the session (the agent loop's `run`) runs on the result. `decide` is tested with inputs
//! made by hand, the flag checks of `read` with command lines.

mod decide;
mod read;

pub use decide::decide;
pub use read::{read, Gates, Inputs, Stop, DEFAULT_MODEL};
