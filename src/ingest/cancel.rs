//! Stopping a load from outside, for callers that run loads on behalf of
//! someone who may stop waiting (the Python package's Ctrl-C).
//!
//! A [`Token`] is put in scope around the work ([`within`] for a thread,
//! [`scope`] for a task); readers call [`check`] at each chunk they take and
//! the load's stages call it between stages, so a cancelled load ends with
//! [`Problem::Cancelled`] within one chunk (1 MiB of input). Without a token in
//! scope (the CLI) [`check`] is one thread-local read.

use std::cell::RefCell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::Problem;

/// A shared flag: cancelled once, cancelled for good.
#[derive(Debug, Clone, Default)]
pub struct Token(Arc<AtomicBool>);

impl Token {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

thread_local! {
    static ON_THREAD: RefCell<Option<Token>> = const { RefCell::new(None) };
}

tokio::task_local! {
    static IN_TASK: Token;
}

/// Runs `work` on this thread with `token` in scope (None: none).
pub fn within<T>(token: Option<Token>, work: impl FnOnce() -> T) -> T {
    let before = ON_THREAD.with(|current| current.replace(token));
    // Restored even if `work` panics, so a pooled thread never keeps a token.
    struct Restore(Option<Token>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let token = self.0.take();
            ON_THREAD.with(|current| *current.borrow_mut() = token);
        }
    }
    let _restore = Restore(before);
    work()
}

/// `work` as a future with `token` in scope; work it hands to other threads
/// carries the token there with [`current`] and [`within`].
pub async fn scope<F: Future>(token: Token, work: F) -> F::Output {
    IN_TASK.scope(token, work).await
}

/// The token in scope here: the task's, else the thread's.
pub fn current() -> Option<Token> {
    IN_TASK
        .try_with(Token::clone)
        .ok()
        .or_else(|| ON_THREAD.with(|current| current.borrow().clone()))
}

/// Err once the token in scope is cancelled.
pub fn check() -> Result<(), Problem> {
    match current() {
        Some(token) if token.is_cancelled() => Err(Problem::Cancelled),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_token_in_scope_stops_the_check_and_leaves_with_its_scope() {
        assert!(check().is_ok(), "no token in scope");
        let token = Token::default();
        within(Some(token.clone()), || {
            assert!(check().is_ok());
            token.cancel();
            assert!(matches!(check(), Err(Problem::Cancelled)));
        });
        assert!(check().is_ok(), "the token left with its scope");
    }

    #[test]
    fn a_task_scope_reaches_the_blocking_work_it_hands_on() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let token = Token::default();
        token.cancel();
        let seen = runtime.block_on(scope(token, async {
            let carried = current();
            std::thread::spawn(move || within(carried, check))
                .join()
                .expect("the thread ends")
        }));
        assert!(matches!(seen, Err(Problem::Cancelled)));
    }
}
