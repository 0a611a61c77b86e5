//! Two connections joined: what one side sends the other receives, each direction until its
//! sender is done, then the receiver's writing half closed so it sees the end too. The bridge
//! inside the sandbox and the proxy outside both carry bytes this way.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;

/// A connection that can be handled from two threads and half-closed.
pub trait Duplex: Read + Write + Send + Sized + 'static {
    fn twin(&self) -> io::Result<Self>;
    fn close_write(&self);
}

impl Duplex for TcpStream {
    fn twin(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn close_write(&self) {
        let _ = self.shutdown(Shutdown::Write);
    }
}

impl Duplex for UnixStream {
    fn twin(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn close_write(&self) {
        let _ = self.shutdown(Shutdown::Write);
    }
}

/// Carries `a` (read through `a_reader`, which may hold bytes already read from it) to `b` and
/// back, until both directions end.
pub fn relay<R, A, B>(a_reader: R, a: A, b: B) -> io::Result<()>
where
    R: Read + Send + 'static,
    A: Duplex,
    B: Duplex,
{
    let mut b_writer = b.twin()?;
    let onward = std::thread::spawn(move || {
        let mut a_reader = a_reader;
        let _ = io::copy(&mut a_reader, &mut b_writer);
        b_writer.close_write();
    });
    let (mut b_reader, mut a_writer) = (b, a);
    let _ = io::copy(&mut b_reader, &mut a_writer);
    a_writer.close_write();
    let _ = onward.join();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directions_arrive_and_end() {
        let (a_near, a_far) = UnixStream::pair().unwrap();
        let (b_near, b_far) = UnixStream::pair().unwrap();
        let joined = std::thread::spawn(move || relay(a_near.twin().unwrap(), a_near, b_near));
        let (mut a, mut b) = (a_far, b_far);
        a.write_all(b"ping").unwrap();
        a.close_write();
        let mut got = String::new();
        b.read_to_string(&mut got).unwrap();
        assert_eq!(got, "ping");
        b.write_all(b"pong").unwrap();
        b.close_write();
        let mut back = String::new();
        a.read_to_string(&mut back).unwrap();
        assert_eq!(back, "pong");
        joined.join().unwrap().unwrap();
    }
}
