use nom::bytes::complete::{tag, take_while1};
use nom::sequence::separated_pair;
use nom::{IResult, Parser};

fn pair(input: &str) -> IResult<&str, (&str, &str)> {
    let word = |i| take_while1(|c: char| c.is_alphanumeric())(i);
    separated_pair(word, tag("="), word).parse(input)
}

fn main() {
    let mut n = 0u64;
    for line in std::io::stdin().lines().map_while(Result::ok) {
        if pair(&line).is_ok() {
            n += 1;
        }
    }
    println!("{}", itoa::Buffer::new().format(n));
}
