use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn counts_stdin() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wordcount"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start wordcount");
    child.stdin.take().unwrap().write_all(b"hello riscv64\nworld\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "2 3 20\n");
}
