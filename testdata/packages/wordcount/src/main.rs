use std::io::{self, Read, Write};

fn main() -> io::Result<()> {
    let mut data = Vec::new();
    io::stdin().lock().read_to_end(&mut data)?;
    let c = wordcount::count(&data);
    writeln!(io::stdout().lock(), "{}", wordcount::format(&c))
}
