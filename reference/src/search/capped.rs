//! An in-memory output for in-process searches with the runner's two bounds: a byte cap (output
//! beyond it is dropped, as the runner's buffer drops it) and a deadline (the search is stopped by
//! failing its next write).

use std::io::{self, Write};
use std::time::{Duration, Instant};

pub struct Capped {
    buf: Vec<u8>,
    cap: usize,
    deadline: Instant,
    timed_out: bool,
}

impl Capped {
    pub fn new(cap: usize, limit: Duration) -> Self {
        Capped {
            buf: Vec::new(),
            cap,
            deadline: Instant::now() + limit,
            timed_out: false,
        }
    }

    pub fn timed_out(&self) -> bool {
        self.timed_out || Instant::now() > self.deadline
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

impl Write for Capped {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if Instant::now() > self.deadline {
            self.timed_out = true;
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "search deadline passed",
            ));
        }
        let room = self.cap.saturating_sub(self.buf.len());
        self.buf.extend_from_slice(&data[..data.len().min(room)]);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
