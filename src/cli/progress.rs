//! Progress bars on stderr: drawn only for an interactive terminal and never with `--json`,
//! all in one style.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Where bars draw: stderr when `show` and stderr is a terminal, else nowhere.
pub fn target(show: bool) -> ProgressDrawTarget {
    if show && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// The house style with `template` (an indicatif template).
pub fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ")
}

/// A bar of `len` steps (None: unknown yet) in `template`, drawn when `show`.
pub fn bar(len: Option<u64>, show: bool, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(len, target(show));
    bar.set_style(style(template));
    bar
}
