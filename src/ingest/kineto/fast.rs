//! The fast path for one event: a single pass over its bytes that pulls out the
//! fields tracesql keeps (and the handful of `args` keys it types) and skips the
//! rest, checking the JSON as it goes.
//!
//! It accepts only what it fully understands: well-formed JSON, keys without
//! escapes, each known field at most once and of the expected type. For anything
//! else, and for an event cut off at the end of the buffer, it returns `None` and
//! the caller decodes the event with serde (`decode::push_event`), which reads it the
//! same way or reports the precise error. So this path changes speed, never results
//! or messages: whatever it accepts, serde would have read to the same values.

use std::borrow::Cow;

use super::decode::{lenient_f64, lenient_str, Event};

/// Nesting deeper than this is left to serde (which stops at 128).
const MAX_DEPTH: usize = 64;

/// Reads the event at the start of `bytes`; returns it and its length in bytes.
pub fn read_event(bytes: &[u8]) -> Option<(Event<'_>, usize)> {
    read_event_in(bytes, "")
}

/// [`read_event`], where `text` is a prefix of `bytes` already known to be
/// UTF-8 ([`valid_prefix`]): the slices the event borrows from it are not
/// checked again. Checking a chunk once, instead of each string, number and
/// `args` object of each event (the `args` twice over), was 7% of a Kineto
/// load's time in a profile.
pub fn read_event_in<'a>(bytes: &'a [u8], text: &'a str) -> Option<(Event<'a>, usize)> {
    let mut c = Cursor {
        b: bytes,
        text,
        i: 0,
    };
    let ev = c.event()?;
    Some((ev, c.i))
}

/// The longest prefix of `bytes` that is UTF-8, as text (a chunk may end
/// inside a character, or hold bytes that are not UTF-8: the events there
/// are checked slice by slice, as without a prefix).
pub fn valid_prefix(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Top-level keys of an event, as bits for the duplicate check.
const PH: u32 = 1;
const CAT: u32 = 1 << 1;
const NAME: u32 = 1 << 2;
const PID: u32 = 1 << 3;
const TID: u32 = 1 << 4;
const TS: u32 = 1 << 5;
const DUR: u32 = 1 << 6;
const ID: u32 = 1 << 7;
const ARGS: u32 = 1 << 8;

/// Keys of `args`, likewise.
const EXTERNAL_ID: u32 = 1;
const CORRELATION: u32 = 1 << 1;
const STREAM: u32 = 1 << 2;
const DEVICE: u32 = 1 << 3;
const SEQ_NUM: u32 = 1 << 4;
const INPUT_DIMS: u32 = 1 << 5;
const INPUT_TYPES: u32 = 1 << 6;
const INPUT_STRIDES: u32 = 1 << 7;
const CONCRETE: u32 = 1 << 8;
const ARG_NAME: u32 = 1 << 9;
const LABELS: u32 = 1 << 10;

/// A JSON string as found: its body between the quotes, and what it contains.
struct RawStr<'a> {
    /// The string with its quotes.
    quoted: &'a [u8],
    body: &'a [u8],
    /// Where `body` starts in the cursor's bytes, and the prefix of them known
    /// to be UTF-8 (sliced only for the strings kept).
    body_at: usize,
    known: &'a str,
    escaped: bool,
}

impl<'a> RawStr<'a> {
    /// The decoded text; None if it is not valid UTF-8.
    fn text(&self) -> Option<Cow<'a, str>> {
        if self.escaped {
            serde_json::from_slice::<String>(self.quoted)
                .ok()
                .map(Cow::Owned)
        } else {
            (self.known.get(self.body_at..self.body_at + self.body.len()))
                .or_else(|| std::str::from_utf8(self.body).ok())
                .map(Cow::Borrowed)
        }
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    /// A prefix of `b` known to be UTF-8 (maybe empty).
    text: &'a str,
    i: usize,
}

impl<'a> Cursor<'a> {
    /// `b[start..end]` as text: sliced from `text` where it lies there, else checked.
    fn str_at(&self, start: usize, end: usize) -> Option<&'a str> {
        (self.text.get(start..end)).or_else(|| std::str::from_utf8(self.b.get(start..end)?).ok())
    }

    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.i += 1;
        }
    }

    /// The next non-whitespace byte, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, want: u8) -> Option<()> {
        (self.peek()? == want).then(|| self.i += 1)
    }

    fn event(&mut self) -> Option<Event<'a>> {
        self.eat(b'{')?;
        let mut ev = Event::default();
        let mut seen = 0u32;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(ev);
        }
        loop {
            let key = self.key()?;
            let bit = match key {
                b"ph" => PH,
                b"cat" => CAT,
                b"name" => NAME,
                b"pid" => PID,
                b"tid" => TID,
                b"ts" => TS,
                b"dur" => DUR,
                b"id" => ID,
                b"args" => ARGS,
                _ => 0,
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            match bit {
                PH => ev.ph = self.opt_string()?,
                CAT => ev.cat = self.opt_string()?,
                NAME => ev.name = self.opt_string()?,
                PID => ev.pid = self.id_text()?,
                TID => ev.tid = self.id_text()?,
                TS => ev.ts = self.opt_time(&mut ev.fractional_time)?,
                DUR => ev.dur = self.opt_time(&mut ev.fractional_time)?,
                ID => ev.flow_id = self.lenient_int()?,
                ARGS => self.args(&mut ev)?,
                _ => self.skip_value(0)?,
            }
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(ev);
                }
                _ => return None,
            }
        }
    }

    /// `"key":` with no escapes in the key; returns its bytes.
    fn key(&mut self) -> Option<&'a [u8]> {
        if self.peek()? != b'"' {
            return None;
        }
        let s = self.string()?;
        if s.escaped {
            return None;
        }
        self.eat(b':')?;
        Some(s.body)
    }

    /// A string (escapes checked as serde checks them); the cursor is on its quote.
    fn string(&mut self) -> Option<RawStr<'a>> {
        let start = self.i;
        let mut i = start + 1;
        let mut escaped = false;
        let mut high = false;
        loop {
            i = plain_run(self.b, i);
            let c = *self.b.get(i)?;
            match c {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    match *self.b.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        b'u' => {
                            let hex = self.b.get(i + 2..i + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            i += 6;
                        }
                        _ => return None,
                    }
                }
                0..=0x1f => return None,
                0x80.. => {
                    high = true;
                    i += 1;
                }
                _ => i += 1,
            }
        }
        // Every string is checked, skipped ones too: stricter than serde at worst.
        if high && self.str_at(start + 1, i).is_none() {
            return None;
        }
        self.i = i + 1;
        Some(RawStr {
            quoted: &self.b[start..i + 1],
            body: &self.b[start + 1..i],
            body_at: start + 1,
            known: self.text,
            escaped,
        })
    }

    /// `null` (None) or a string: ph, cat, name.
    fn opt_string(&mut self) -> Option<Option<Cow<'a, str>>> {
        match self.peek()? {
            b'"' => Some(Some(self.string()?.text()?)),
            b'n' => self.literal(b"null").map(|_| None),
            _ => None,
        }
    }

    /// `null` (None) or a number: ts, dur; sets `fractional` when the number has
    /// a fraction or an exponent (see `decode::TimeValue`). Out-of-range numbers
    /// are serde's to report.
    fn opt_time(&mut self, fractional: &mut bool) -> Option<Option<f64>> {
        match self.peek()? {
            b'n' => self.literal(b"null").map(|_| None),
            _ => {
                let token = self.number()?;
                *fractional |= read_as_float(token);
                let v: f64 = token.parse().ok()?;
                v.is_finite().then_some(Some(v))
            }
        }
    }

    /// pid / tid as text: strings unquoted, anything else as written, null as None.
    fn id_text(&mut self) -> Option<Option<Cow<'a, str>>> {
        match self.peek()? {
            b'"' => Some(Some(self.string()?.text()?)),
            b'n' => self.literal(b"null").map(|_| None),
            _ => Some(Some(Cow::Borrowed(self.raw_value()?))),
        }
    }

    /// An integer field read leniently (see `decode::LenientInt`).
    fn lenient_int(&mut self) -> Option<Option<i64>> {
        match self.peek()? {
            b'"' => {
                let s = self.string()?;
                Some(lenient_str(&s.text()?))
            }
            b'-' | b'0'..=b'9' => {
                let token = self.number()?;
                lenient_number(token)
            }
            _ => {
                self.skip_value(0)?;
                Some(None)
            }
        }
    }

    /// Any value kept as raw JSON text (`Input Dims`, ...); null is None.
    fn opt_raw(&mut self) -> Option<Option<&'a str>> {
        match self.peek()? {
            b'n' => self.literal(b"null").map(|_| None),
            _ => self.raw_value().map(Some),
        }
    }

    fn raw_value(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.i;
        self.skip_value(0)?;
        self.str_at(start, self.i)
    }

    /// The `args` object: kept whole as text, and the keys tracesql types read.
    fn args(&mut self, ev: &mut Event<'a>) -> Option<()> {
        match self.peek()? {
            b'n' => return self.literal(b"null"),
            b'{' => {}
            _ => return None,
        }
        let start = self.i;
        self.i += 1;
        let mut seen = 0u32;
        if self.peek()? == b'}' {
            self.i += 1;
        } else {
            loop {
                let key = self.key()?;
                let bit = match key {
                    b"External id" => EXTERNAL_ID,
                    b"correlation" => CORRELATION,
                    b"stream" => STREAM,
                    b"device" => DEVICE,
                    b"Sequence number" => SEQ_NUM,
                    b"Input Dims" => INPUT_DIMS,
                    b"Input type" => INPUT_TYPES,
                    b"Input Strides" => INPUT_STRIDES,
                    b"Concrete Inputs" => CONCRETE,
                    b"name" => ARG_NAME,
                    b"labels" => LABELS,
                    _ => 0,
                };
                if seen & bit != 0 {
                    return None;
                }
                seen |= bit;
                let inputs = &mut ev.inputs;
                match bit {
                    EXTERNAL_ID => ev.external_id = self.lenient_int()?,
                    CORRELATION => ev.correlation = self.lenient_int()?,
                    STREAM => ev.stream = self.lenient_int()?,
                    DEVICE => ev.device = self.lenient_int()?,
                    SEQ_NUM => ev.seq_num = self.lenient_int()?,
                    INPUT_DIMS => inputs.dims = self.opt_raw()?,
                    INPUT_TYPES => inputs.types = self.opt_raw()?,
                    INPUT_STRIDES => inputs.strides = self.opt_raw()?,
                    CONCRETE => inputs.concrete = self.opt_raw()?,
                    ARG_NAME => ev.meta_name = self.opt_raw()?,
                    LABELS => ev.meta_labels = self.opt_raw()?,
                    _ => self.skip_value(1)?,
                }
                match self.peek()? {
                    b',' => self.i += 1,
                    b'}' => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        // serde checks the whole raw `args` is UTF-8; so must we.
        ev.args = Some(self.str_at(start, self.i)?);
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    /// A JSON number token (strict grammar: no leading zeros, digits after `.`/`e`).
    fn number(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.i;
        let b = self.b;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match *b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits(b, i),
            _ => return None,
        }
        if b.get(i) == Some(&b'.') {
            let end = digits(b, i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let end = digits(b, i);
            if end == i {
                return None;
            }
            i = end;
        }
        // A number cut off by the end of the buffer may go on: let serde see it whole.
        if i >= b.len() {
            return None;
        }
        self.i = i;
        self.str_at(start, i)
    }

    /// Skips any value, checking it is well-formed JSON.
    fn skip_value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' => {
                self.i += 1;
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    if self.peek()? != b'"' {
                        return None;
                    }
                    self.string()?;
                    self.eat(b':')?;
                    self.skip_value(depth + 1)?;
                    match self.peek()? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.i += 1;
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.skip_value(depth + 1)?;
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number().map(|_| ()),
        }
    }
}

/// Index of the first byte at or after `i` that a string scan must look at (a quote,
/// a backslash, a control character or a non-ASCII byte), eight bytes at a time;
/// may stop short of it in the last seven bytes of `b`.
pub(crate) fn plain_run(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    while let Some(Ok(word)) = b.get(i..i + 8).map(<[u8; 8]>::try_from) {
        let x = u64::from_le_bytes(word);
        let quote = has_zero(x ^ (ONES * u64::from(b'"')));
        let backslash = has_zero(x ^ (ONES * u64::from(b'\\')));
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        if quote | backslash | control | (x & HIGH) != 0 {
            break;
        }
        i += 8;
    }
    i
}

/// Whether serde_json reads the number `token` as a float (and the other
/// decoder, `decode::TimeValue`, counts it fractional): a fraction or an
/// exponent, as Python reads floats; also `-0` (a float, to keep the sign) and
/// an integer beyond i64 and u64. Both decoders must agree, or the count would
/// depend on which one the chunking hands an event to (two fuzz findings;
/// Python would read those two as ints, but no profiler writes them).
fn read_as_float(token: &str) -> bool {
    if !integer_form(token) || token == "-0" {
        return true;
    }
    // Up to 18 digits always fit an i64.
    token.trim_start_matches('-').len() > 18
        && token.parse::<i64>().is_err()
        && token.parse::<u64>().is_err()
}

/// Whether the number `token` is written as an integer: no fraction, no exponent.
fn integer_form(token: &str) -> bool {
    !token.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

/// Index of the first non-digit at or after `i`.
fn digits(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// A number token read as serde_json's `deserialize_any` would hand it to
/// `LenientInt`: integers as i64 when they fit, anything else through f64.
///
/// None when the number is out of f64's range: serde_json refuses it ("number
/// out of range"), so the event goes to serde for that error (a fuzz finding:
/// read here as a missing value, the same event failed or loaded depending on
/// which decoder the chunking gave it to).
fn lenient_number(token: &str) -> Option<Option<i64>> {
    if integer_form(token) {
        if let Ok(v) = token.parse::<i64>() {
            return Some(Some(v));
        }
        // Positive values above i64::MAX are u64 to serde and fail `try_from`;
        // values beyond u64 become f64 and are far above the f64 limit below.
        if !token.starts_with('-') && token.parse::<u64>().is_ok() {
            return Some(None);
        }
    }
    let v: f64 = token.parse().ok()?;
    v.is_finite().then(|| lenient_f64(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Event<'_>> {
        let (ev, len) = read_event(text.as_bytes())?;
        assert_eq!(len, text.trim_end_matches(" tail").len());
        Some(ev)
    }

    #[test]
    fn reads_fields_and_args_in_one_pass() {
        let text = r#"{"ph":"X","cat":"kernel","name":"k\"1","pid":0,"tid":"7","ts":10.5,"dur":2,
            "x":[1,{"a":null}],"args":{"correlation":42,"stream":"7","device":0.0,
            "External id":[1],"Input Dims":[[1, 2]]}} tail"#;
        let ev = read(text).expect("fast path reads it");
        assert_eq!(ev.name.as_deref(), Some("k\"1"));
        assert_eq!(ev.pid.as_deref(), Some("0"));
        assert_eq!(ev.tid.as_deref(), Some("7"));
        assert_eq!((ev.ts, ev.dur), (Some(10.5), Some(2.0)));
        assert_eq!(ev.correlation, Some(42));
        assert_eq!(ev.stream, Some(7));
        assert_eq!(ev.device, Some(0));
        assert_eq!(ev.external_id, None);
        assert_eq!(ev.inputs.dims, Some("[[1, 2]]"));
        assert!(ev.args.is_some_and(|a| a.starts_with("{\"correlation\"")));
    }

    #[test]
    fn leaves_the_unusual_to_serde() {
        for text in [
            r#"{"ts":"soon"}"#,
            r#"{"ts":1,"ts":2}"#,
            r#"{"ts":01}"#,
            r#"{"ts":1e999}"#,
            r#"{"p\u0068":"X"}"#,
            r#"{"args":[1]}"#,
            r#"{"args":{"a":tru}}"#,
            r#"{"args":{"a":"x
"}}"#,
            r#"{"name":"k""#,
            r#"{"ts":12"#,
            "[1]",
        ] {
            assert!(read_event(text.as_bytes()).is_none(), "{text}");
        }
    }

    /// Everything the fast path accepts, serde reads to the same row.
    #[test]
    fn agrees_with_serde_on_what_it_accepts() {
        use crate::ingest::kineto::decode::{push_decoded, push_event};
        use crate::ingest::RawTrace;
        let cases = [
            r#"{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":1.5,"dur":0,
               "args":{"External id":3,"Sequence number":"4","Input Dims":[[2,3],[]],
               "Input type":["float",""],"Input Strides":null,"Concrete Inputs":["", "1"]}}"#,
            r#"{ "ph" : "X" , "cat":"kernel","name":"k\u00e9\n\"x\"","pid":"GPU \"0\"","tid":-7,
               "ts":123456789012.125,"dur":1e-3,"args":{"correlation":-0,"stream":7.0,
               "device":"  3 ","grid":[1, 1, 1],"x":{"y":[true,false,null,-1.5E+2]}}}"#,
            r#"{"ph":"M","name":"thread_name","pid":"p","tid":"t","args":{"name":"th\u0041"}}"#,
            r#"{"ph":"M","name":"process_labels","pid":3,"args":{"labels":[1,"a"],"name":null}}"#,
            r#"{"ph":"s","cat":"ac2g","id":"12","pid":1,"tid":1,"ts":5,"args":null}"#,
            r#"{"ph":"f","cat":"ac2g","id":9223372036854775808,"pid":1,"tid":1,"ts":-0}"#,
            r#"{"ph":"X","cat":"cuda_runtime","name":"é","pid":1,"tid":1,"ts":18446744073709551616,
               "dur":null,"args":{"correlation":1.5,"External id":{"a":1},"stream":true}}"#,
            r#"{"name":null,"cat":null,"ph":null,"pid":[1,2],"tid":{"a":"b"},"extra":"\ud83d"}"#,
            r#"{}"#,
        ];
        for text in cases {
            let (ev, len) = read_event(text.as_bytes()).expect(text);
            assert_eq!(len, text.len(), "{text}");
            let (mut fast, mut slow) = (RawTrace::new("t"), RawTrace::new("t"));
            assert!(
                push_decoded(&mut fast, &ev, text.as_bytes(), 5).is_ok(),
                "{text}"
            );
            assert!(push_event(&mut slow, text.as_bytes(), 5).is_ok(), "{text}");
            assert_eq!(row(&fast), row(&slow), "{text}");
            // Read with any prefix known to be text: the same row.
            let ends = (0..=text.len()).filter(|&k| text.is_char_boundary(k));
            for known in ends.map(|k| &text[..k]) {
                let (ev, len) = read_event_in(text.as_bytes(), known).expect(text);
                assert_eq!(len, text.len(), "{text}");
                let mut with_text = RawTrace::new("t");
                assert!(push_decoded(&mut with_text, &ev, text.as_bytes(), 5).is_ok());
                assert_eq!(row(&with_text), row(&slow), "{text} knowing {known:?}");
            }
        }
    }

    #[test]
    fn a_chunk_is_text_up_to_its_first_bad_byte() {
        let mut bytes = b"{\"name\":\"a\xc3\xa9\",\"args\":{\"x\":\"\xff\"}}".to_vec();
        assert_eq!(
            valid_prefix(&bytes),
            "{\"name\":\"a\u{e9}\",\"args\":{\"x\":\""
        );
        // Past the prefix, strings are checked as before: an event with a byte
        // that is not UTF-8 is left to serde.
        assert!(read_event_in(&bytes, valid_prefix(&bytes)).is_none());
        bytes[27] = b'y';
        let text = valid_prefix(&bytes);
        assert_eq!(text.len(), bytes.len());
        let (ev, _) = read_event_in(&bytes, text).expect("reads");
        assert_eq!(ev.name.as_deref(), Some("a\u{e9}"));
        // A character cut off at the end of a chunk: the prefix stops before it.
        assert_eq!(valid_prefix(&bytes[..11]), "{\"name\":\"a");
    }

    fn row(t: &crate::ingest::RawTrace) -> String {
        let s = |c: &crate::ingest::Column<u32>| t.str(c.get(0)).map(str::to_string);
        let f = |c: &crate::ingest::Column<f64>| c.get(0).map(f64::to_bits);
        let inputs = t.op_inputs_of(&[0])[0];
        let input =
            |pick: fn(&crate::ingest::OpInputs) -> Option<u32>| t.input_text(inputs.and_then(pick));
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            t.kind[0],
            s(&t.ph),
            s(&t.cat),
            s(&t.name),
            s(&t.pid),
            s(&t.tid),
            f(&t.ts),
            f(&t.dur),
            t.correlation.get(0),
            t.external_id.get(0),
            t.stream.get(0),
            t.device.get(0),
            t.seq_num.get(0),
            t.flow_id.get(0),
            t.args_of(0),
            (t.args_at[0], t.args_len[0]),
            input(|i| i.dims),
            input(|i| i.types),
            input(|i| i.strides),
            input(|i| i.concrete),
            (&t.process_names, &t.process_labels),
            &t.thread_names,
        )
    }

    #[test]
    fn plain_run_stops_at_every_special_byte() {
        for special in [b'"', b'\\', 0x00, 0x1f, 0x80, 0xff] {
            for at in 0..20 {
                let mut text = vec![b'a'; 24];
                text[at] = special;
                let stop = plain_run(&text, 0);
                assert!(stop <= at, "{special:#x} at {at}: stopped at {stop}");
            }
        }
        assert_eq!(plain_run(&[b' '; 16], 0), 16);
    }

    #[test]
    fn times_read_as_floats_are_those_serde_reads_as_floats() {
        for (token, float) in [
            ("11055", false),
            ("-7", false),
            ("0", false),
            ("1.5", true),
            ("1e3", true),
            ("-0", true),
            ("9223372036854775807", false),
            ("18446744073709551615", false),
            ("18446744073709551616", true),
            ("-9223372036854775809", true),
        ] {
            assert_eq!(read_as_float(token), float, "{token}");
            let serde_float = serde_json::from_str::<serde_json::Value>(token)
                .map(|v| v.is_f64())
                .unwrap_or(true);
            assert_eq!(serde_float, float, "serde on {token}");
        }
    }

    #[test]
    fn lenient_numbers_match_serde() {
        assert_eq!(lenient_number("-0"), Some(Some(0)));
        assert_eq!(lenient_number("7.0"), Some(Some(7)));
        assert_eq!(lenient_number("7.5"), Some(None));
        assert_eq!(lenient_number("9223372036854775807"), Some(Some(i64::MAX)));
        assert_eq!(lenient_number("9223372036854775808"), Some(None));
        assert_eq!(lenient_number("-9223372036854775809"), Some(None));
        assert_eq!(lenient_number("1e3"), Some(Some(1000)));
        // Out of f64's range: declined, serde reports it.
        assert_eq!(lenient_number("11e4000"), None);
        assert_eq!(lenient_number(&format!("-{}", "9".repeat(400))), None);
    }
}
