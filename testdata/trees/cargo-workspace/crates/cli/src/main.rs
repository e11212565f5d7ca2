fn main() { println!("{}", ws_core::answer()); }
