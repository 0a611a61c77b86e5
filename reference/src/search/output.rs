//! Where search output goes: straight to one writer (one thread), or per file into buffers that
//! are written whole, with the file separator between non-empty ones (several threads), as
//! ripgrep's buffered writer does.

use std::io::{self, Write};
use std::sync::Mutex;

pub struct Sink<W: Write> {
    inner: Mutex<SinkState<W>>,
    separator: Option<Vec<u8>>,
}

struct SinkState<W> {
    out: W,
    printed: bool,
}

impl<W: Write> Sink<W> {
    pub fn new(out: W, separator: Option<Vec<u8>>) -> Self {
        Sink {
            inner: Mutex::new(SinkState {
                out,
                printed: false,
            }),
            separator,
        }
    }

    /// Writes one file's output as a unit.
    pub fn write_buffer(&self, buf: &[u8]) -> io::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let mut state = self.inner.lock().expect("not poisoned");
        if state.printed {
            if let Some(sep) = &self.separator {
                state.out.write_all(sep)?;
                state.out.write_all(b"\n")?;
            }
        }
        state.printed = true;
        state.out.write_all(buf)
    }

    pub fn into_inner(self) -> W {
        self.inner.into_inner().expect("not poisoned").out
    }
}
