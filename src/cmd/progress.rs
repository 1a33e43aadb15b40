//! The spinner on stderr while a tree is walked.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Counts files on stderr until dropped; nothing when `quiet`.
pub struct Spinner {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Spinner {
    pub fn start(quiet: bool, counter: Arc<AtomicU64>) -> Spinner {
        let done = Arc::new(AtomicBool::new(false));
        if quiet {
            return Spinner { done, thread: None };
        }
        let d = done.clone();
        let thread = std::thread::spawn(move || {
            let pb = indicatif::ProgressBar::new_spinner();
            pb.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} scanning: {msg} files ({elapsed})",
                )
                .unwrap(),
            );
            while !d.load(Ordering::Relaxed) {
                pb.set_message(counter.load(Ordering::Relaxed).to_string());
                pb.tick();
                // Parked, not asleep: dropping the spinner unparks it, so
                // the command ends when its work does, not up to a tick
                // later (a tenth of a second on a walk of 0.25 s).
                std::thread::park_timeout(Duration::from_millis(100));
            }
            pb.finish_and_clear();
        });
        Spinner {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(h) = self.thread.take() {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}
