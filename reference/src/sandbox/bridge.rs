//! The first process inside the sandbox (`claude-reference __sandbox-init`): the command's only
//! network is its own loopback, so this listens where 2.1.235's sandbox offers its proxies
//! (HTTP on 127.0.0.1:3128, SOCKS on 127.0.0.1:1080) and carries every connection to the
//! session's proxy socket outside; then it starts the command with Unix sockets taken away
//! (a seccomp filter: `socket(AF_UNIX, …)` fails with EPERM, as 2.1.235's does) unless the
//! settings allow them, and exits as the command does. The bridge itself keeps its Unix
//! sockets: it is the one way out.

use std::ffi::OsString;
use std::io;
use std::net::TcpListener;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::PathBuf;
use std::process::Command;

/// The argument that starts the binary as the bridge.
pub const ARG: &str = "__sandbox-init";
/// Where the command finds the proxies, inside its network namespace.
pub const HTTP_PORT: u16 = 3128;
pub const SOCKS_PORT: u16 = 1080;

/// `__sandbox-init SOCKET unix|no-unix -- PROGRAM ARGS…`: serves until the command ends, then
/// exits with its status.
pub fn main(args: Vec<OsString>) -> i32 {
    let mut args = args.into_iter();
    let (Some(socket), Some(unix), Some(_dashes), Some(program)) =
        (args.next(), args.next(), args.next(), args.next())
    else {
        eprintln!("{ARG}: usage: {ARG} SOCKET unix|no-unix -- PROGRAM ARGS...");
        return 2;
    };
    let socket = PathBuf::from(socket);
    for port in [HTTP_PORT, SOCKS_PORT] {
        match TcpListener::bind(("127.0.0.1", port)) {
            Ok(listener) => {
                let socket = socket.clone();
                std::thread::spawn(move || carry(listener, socket));
            }
            Err(e) => eprintln!("sandbox: cannot offer the proxy on port {port}: {e}"),
        }
    }
    let mut command = Command::new(program);
    command.args(args);
    if unix != "unix" {
        let filter = match no_unix_sockets() {
            Ok(filter) => filter,
            Err(e) => {
                eprintln!("sandbox: cannot build the seccomp filter: {e}");
                return 1;
            }
        };
        // SAFETY: between fork and exec only two system calls are made (prctl, seccomp), on a
        // program built before the fork: nothing allocates or takes a lock.
        unsafe {
            command.pre_exec(move || {
                seccompiler::apply_filter(&filter).map_err(|e| io::Error::other(e.to_string()))
            });
        }
    }
    match command.status() {
        Ok(status) => status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
        Err(e) => {
            eprintln!("sandbox: cannot start the command: {e}");
            126
        }
    }
}

/// Every connection to `listener`, carried to the proxy's socket.
fn carry(listener: TcpListener, socket: PathBuf) {
    for stream in listener.incoming().flatten() {
        let socket = socket.clone();
        std::thread::spawn(move || {
            if let (Ok(outside), Ok(reader)) = (UnixStream::connect(&socket), stream.try_clone()) {
                let _ = super::relay::relay(reader, stream, outside);
            }
        });
    }
}

/// The filter: `socket(AF_UNIX, …)` is refused with EPERM; every other call goes through.
fn no_unix_sockets() -> Result<seccompiler::BpfProgram, seccompiler::BackendError> {
    use seccompiler::{
        SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    };
    let unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        libc::AF_UNIX as u64,
    )?;
    let rules = [(libc::SYS_socket, vec![SeccompRule::new(vec![unix])?])]
        .into_iter()
        .collect();
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|_| seccompiler::BackendError::InvalidTargetArch(std::env::consts::ARCH.into()))?;
    SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?
    .try_into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_refuses_unix_sockets_only() {
        let filter = no_unix_sockets().unwrap();
        // In a child, so the test process keeps its own sockets.
        let mut probe = Command::new("python3");
        probe.args([
            "-c",
            "import socket\ntry:\n socket.socket(socket.AF_UNIX)\n print('unix')\nexcept PermissionError:\n print('no unix')\nsocket.socket(socket.AF_INET)\nprint('inet')",
        ]);
        unsafe {
            probe.pre_exec(move || {
                seccompiler::apply_filter(&filter).map_err(|e| io::Error::other(e.to_string()))
            });
        }
        let out = probe.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "no unix\ninet\n");
    }
}
