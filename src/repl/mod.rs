//! The interactive SQL session (`tracesql repl TRACE...`).
//!
//! One file per concern, as in datafusion-cli: `command` (meta-commands and the
//! help table generated from them), `helper` (rustyline completion and
//! multi-line validation), `exec` (running statements and commands), `print`
//! (rendering). At a terminal it is a line editor with history; with standard
//! input piped it runs the statements and prints results, no prompt, no colour.

pub mod command;
pub mod exec;
pub mod helper;

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::Editor;

use crate::catalog::Catalog;
use crate::engine::{Engine, Prepare};
use crate::load::load_input;
use crate::Error;
use exec::{Flow, ReplError, Session};
use helper::ReplHelper;

const PROMPT: &str = "tracesql> ";

/// Opens a session over `traces` (trace files or export directories);
/// `prepare` configures the engine before they load (e.g. `--platform`).
/// Returns whether every statement succeeded (always true at a terminal, where
/// errors are part of the conversation).
pub fn run(traces: &[String], catalog: Catalog, prepare: &Prepare<'_>) -> Result<bool, Error> {
    if traces.iter().any(|t| t == "-") {
        return Err(Error::Usage(
            "the REPL reads its statements from standard input; give traces as files".into(),
        ));
    }
    let mut engine = Engine::with_catalog(catalog);
    prepare(&engine)?;
    for path in traces {
        for trace in load_input(path)? {
            engine.add(trace).map_err(Error::query)?;
        }
    }
    run_engine(engine)
}

/// Opens the REPL over a session already set up (e.g. `compare --repl`'s,
/// which holds two sides' reports and the comparison views).
pub fn run_engine(engine: Engine) -> Result<bool, Error> {
    let interactive = std::io::stdin().is_terminal();
    let session = Session::new(engine, interactive).map_err(|e| Error::Query(e.0))?;
    if interactive {
        interactive_loop(session)?;
        Ok(true)
    } else {
        piped(session)
    }
}

/// Standard input is not a terminal: run it as a script.
fn piped(mut session: Session) -> Result<bool, Error> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (ok, _) = session
        .run_script(stdin.lock().lines(), &mut out, &mut |e: &ReplError| {
            eprintln!("error: {e}");
            true
        })
        .map_err(|e| Error::Usage(e.0))?;
    out.flush().map_err(|e| Error::Output(e.to_string()))?;
    Ok(ok)
}

fn interactive_loop(mut session: Session) -> Result<(), Error> {
    let config = Config::builder()
        .auto_add_history(false)
        .history_ignore_dups(true)
        .map_err(|e| Error::Output(e.to_string()))?
        .history_ignore_space(true)
        .completion_type(CompletionType::List)
        .max_history_size(10_000)
        .map_err(|e| Error::Output(e.to_string()))?
        .build();
    let mut editor: Editor<ReplHelper, DefaultHistory> =
        Editor::with_config(config).map_err(|e| Error::Output(format!("terminal: {e}")))?;
    editor.set_helper(Some(ReplHelper::new(session.names())));
    let history = history_path();
    if let Some(path) = &history {
        if path.exists() {
            if let Err(e) = editor.load_history(path) {
                eprintln!("warning: cannot read history {}: {e}", path.display());
            }
        }
    }
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    banner(&session);
    loop {
        session.forget_interrupts();
        match editor.readline(PROMPT) {
            Ok(line) => {
                if line.trim().is_empty() {
                    continue;
                }
                // Errors adding to history only lose history.
                let _ = editor.add_history_entry(line.as_str());
                let stdout = std::io::stdout();
                let mut out = stdout.lock();
                match session.execute(&line, &mut out) {
                    Ok(Flow::Quit) => break,
                    Ok(Flow::Continue) => {}
                    Err(e) => {
                        let _ = out.flush();
                        if color {
                            eprintln!("\x1b[31merror:\x1b[0m {e}");
                        } else {
                            eprintln!("error: {e}");
                        }
                    }
                }
                if let Some(helper) = editor.helper_mut() {
                    helper.set_names(session.names());
                }
            }
            // Ctrl-C at the prompt clears the line.
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("error: terminal: {e}");
                break;
            }
        }
    }
    if let Some(path) = &history {
        save_history(&mut editor, path);
    }
    Ok(())
}

fn banner(session: &Session) {
    let names = session.engine().trace_names();
    let loaded = match names.len() {
        0 => "no trace loaded (.load PATH adds one)".to_string(),
        1 => format!("trace {}", names[0]),
        n => format!("{n} traces: {}", names.join(", ")),
    };
    println!(
        "tracesql {} with {loaded}. .help lists commands; end SQL with ';'; Ctrl-D exits.",
        env!("CARGO_PKG_VERSION")
    );
}

/// `$XDG_STATE_HOME/tracesql/history`, else `~/.local/state/tracesql/history`.
pub fn history_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local").join("state"))
        })?;
    Some(state.join("tracesql").join("history"))
}

fn save_history(editor: &mut Editor<ReplHelper, DefaultHistory>, path: &std::path::Path) {
    if let Some(dir) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("warning: cannot create {}: {e}", dir.display());
            return;
        }
    }
    if let Err(e) = editor.save_history(path) {
        eprintln!("warning: cannot save history to {}: {e}", path.display());
    }
}
