//! Op schema strings (`aten::addmm(Tensor self, ..., *, Scalar alpha=1) -> Tensor`)
//! parsed two ways: completely ([`Schema::parse`], the native mode's) and the
//! way TraceLens's own parser reads them, failures included ([`compat_args`]).
//!
//! Why two: TraceLens splits the argument text on `*` and `,` without looking
//! at brackets, so 216 of torch 2.15's schemas (conv2d's `stride=[1, 1]`,
//! `Tensor(a -> *)`, varargs) fail to parse and abort the op's replay. The
//! compat mode must fail on exactly those; the native mode must not.

/// One argument of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// Type as written: `Tensor`, `Tensor(a!)`, `int[1]?`, `ScalarType?`, ...
    pub ty: String,
    pub name: String,
    /// Default as written (`None`, `1`, `"none"`, `[1, 1]`); None when absent.
    pub default: Option<String>,
    /// After the `*` marker: passed by keyword only.
    pub kw_only: bool,
}

/// A schema parsed completely: `ns::name.overload(args) -> returns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    /// Base name with namespace, `aten::add`.
    pub name: String,
    /// Overload name, `Tensor`; empty for the default overload.
    pub overload: String,
    pub args: Vec<Arg>,
    /// `...` in the arguments (TorchScript varargs): not callable from a trace.
    pub varargs: bool,
    /// The return text after `->`.
    pub returns: String,
}

impl Schema {
    /// Parses a schema string as torch prints it. Brackets, parentheses and
    /// quotes nest, so `SymInt[2] stride=[1, 1]` and `Tensor(a -> *) self`
    /// are one argument each.
    pub fn parse(text: &str) -> Result<Schema, String> {
        let open = text
            .find('(')
            .ok_or_else(|| format!("no argument list in {text:?}"))?;
        let close = matching_paren(text, open)
            .ok_or_else(|| format!("unbalanced parentheses in {text:?}"))?;
        let full_name = text[..open].trim();
        let (name, overload) = split_overload(full_name);
        let returns = text[close + 1..]
            .trim()
            .strip_prefix("->")
            .map(|r| r.trim().to_string())
            .unwrap_or_default();
        let mut args = Vec::new();
        let mut kw_only = false;
        let mut varargs = false;
        for piece in split_top_level(&text[open + 1..close], ',') {
            let piece = piece.trim();
            match piece {
                "" => continue,
                "*" => kw_only = true,
                "..." => varargs = true,
                _ => {
                    let mut arg = parse_arg(piece)?;
                    arg.kw_only = kw_only;
                    args.push(arg);
                }
            }
        }
        Ok(Schema {
            name: name.to_string(),
            overload: overload.to_string(),
            args,
            varargs,
            returns,
        })
    }

    /// `aten::add.Tensor`, or `aten::addmm.default` for the default overload
    /// (the spelling of `torch.ops.aten.addmm.default`).
    pub fn overload_name(&self) -> String {
        let overload = if self.overload.is_empty() {
            "default"
        } else {
            &self.overload
        };
        format!("{}.{overload}", self.name)
    }
}

/// `aten::add.Tensor` → (`aten::add`, `Tensor`). The namespace's `::` is not an
/// overload separator.
fn split_overload(full: &str) -> (&str, &str) {
    let start = full.find("::").map_or(0, |at| at + 2);
    match full[start..].find('.') {
        Some(dot) => (&full[..start + dot], &full[start + dot + 1..]),
        None => (full, ""),
    }
}

/// Each character of `text` outside quoted text, with the bracket depth
/// after it (`(`/`[` open, `)`/`]` close); `visit` returning true stops.
fn scan_unquoted(text: &str, mut visit: impl FnMut(usize, char, i32) -> bool) {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if visit(i, c, depth) {
            return;
        }
    }
}

/// Index of the `)` closing the `(` at `open`, skipping nested brackets and
/// quoted text.
fn matching_paren(text: &str, open: usize) -> Option<usize> {
    let mut found = None;
    scan_unquoted(&text[open..], |i, c, depth| {
        if c == ')' && depth == 0 {
            found = Some(open + i);
        }
        found.is_some()
    });
    found
}

/// `text` split at `sep` where no bracket or quote is open.
pub(crate) fn split_top_level(text: &str, sep: char) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    scan_unquoted(text, |i, c, depth| {
        if c == sep && depth == 0 {
            pieces.push(&text[start..i]);
            start = i + c.len_utf8();
        }
        false
    });
    pieces.push(&text[start..]);
    pieces
}

/// `TYPE NAME[=DEFAULT]`; TYPE may hold spaces inside parentheses
/// (`Tensor(a -> *)`), so the name is the last word before the default.
fn parse_arg(piece: &str) -> Result<Arg, String> {
    let (decl, default) = match split_top_level(piece, '=').as_slice() {
        [decl] => (*decl, None),
        [decl, rest @ ..] => (*decl, Some(rest.join("=").trim().to_string())),
        [] => return Err(format!("empty argument {piece:?}")),
    };
    let decl = decl.trim();
    let split = decl
        .rfind(char::is_whitespace)
        .ok_or_else(|| format!("argument without a name: {piece:?}"))?;
    let (ty, name) = (decl[..split].trim(), decl[split..].trim());
    if ty.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(format!("invalid argument {piece:?}"));
    }
    Ok(Arg {
        ty: ty.to_string(),
        name: name.to_string(),
        default,
        kw_only: false,
    })
}

/// The arguments as TraceLens's parser reads them: the argument text (up to
/// the last `)` followed by `->`) is split on `*` (before: positional, after:
/// keyword-only), each part on `,`, and each piece must be `TYPE NAME[=DEFAULT]`
/// with no space in TYPE. A piece that is not gives TraceLens's error,
/// `Invalid arg: <piece>`, which aborts the op's whole schema search.
pub fn compat_args(text: &str) -> Result<Vec<Arg>, String> {
    let open = text
        .find('(')
        .ok_or_else(|| format!("Invalid schema: {text}"))?;
    let close = last_paren_before_arrow(text)
        .filter(|&close| close > open)
        .ok_or_else(|| format!("Invalid schema: {text}"))?;
    let inner = &text[open + 1..close];
    let mut parts = inner.splitn(2, '*');
    let positional = parts.next().unwrap_or("");
    let keyword = parts.next();
    let mut args = Vec::new();
    for (part, kw_only) in [(Some(positional), false), (keyword, true)] {
        let Some(part) = part else { continue };
        for piece in part.split(',') {
            let piece = piece.trim();
            if piece.is_empty() {
                continue;
            }
            let mut arg = compat_arg(piece)?;
            arg.kw_only = kw_only;
            args.push(arg);
        }
    }
    Ok(args)
}

/// The `)` of the last `) ->` in `text`: a greedy match of `(.*)\) ->`.
fn last_paren_before_arrow(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut found = None;
    for (i, &b) in bytes.iter().enumerate() {
        if b != b')' {
            continue;
        }
        let rest = text[i + 1..].trim_start();
        if rest.starts_with("->") {
            found = Some(i);
        }
    }
    found
}

/// One piece under TraceLens's rule: `^\S+\s+\w+(=.*)?$`.
fn compat_arg(piece: &str) -> Result<Arg, String> {
    let invalid = || format!("Invalid arg: {piece}");
    let (ty, rest) = piece.split_once(char::is_whitespace).ok_or_else(invalid)?;
    let rest = rest.trim_start();
    let (name, default) = match rest.split_once('=') {
        Some((name, default)) => (name, Some(default.to_string())),
        None => (rest, None),
    };
    let word = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if ty.is_empty() || ty.contains('*') || !word {
        return Err(invalid());
    }
    Ok(Arg {
        ty: ty.to_string(),
        name: name.to_string(),
        default,
        kw_only: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADDMM: &str = "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor";
    const CONV2D: &str = "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor";

    #[test]
    fn parses_names_overloads_and_keyword_only_arguments() {
        let s = Schema::parse(ADDMM).unwrap();
        assert_eq!((s.name.as_str(), s.overload.as_str()), ("aten::addmm", ""));
        assert_eq!(s.overload_name(), "aten::addmm.default");
        let kw: Vec<_> = s
            .args
            .iter()
            .map(|a| (a.name.as_str(), a.kw_only))
            .collect();
        assert_eq!(
            kw,
            [
                ("self", false),
                ("mat1", false),
                ("mat2", false),
                ("beta", true),
                ("alpha", true)
            ]
        );
        assert_eq!(s.args[4].default.as_deref(), Some("1"));
        let add = Schema::parse(
            "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        )
        .unwrap();
        assert_eq!(add.overload_name(), "aten::add.Tensor");
    }

    #[test]
    fn nested_brackets_and_aliases_stay_one_argument() {
        let s = Schema::parse(CONV2D).unwrap();
        assert_eq!(s.args.len(), 7);
        assert_eq!(s.args[3].default.as_deref(), Some("[1, 1]"));
        let alias =
            Schema::parse("aten::foo(Tensor(a -> *) self, str reduce=\"a,b\") -> Tensor(a)")
                .unwrap();
        assert_eq!(alias.args[0].ty, "Tensor(a -> *)");
        assert_eq!(alias.args[1].default.as_deref(), Some("\"a,b\""));
        assert!(
            Schema::parse("prim::rpc_async(...) -> ...")
                .unwrap()
                .varargs
        );
    }

    #[test]
    fn compat_parser_fails_where_tracelens_does() {
        assert_eq!(compat_args(CONV2D).unwrap_err(), "Invalid arg: 1]");
        let args = compat_args(ADDMM).unwrap();
        assert_eq!(args.len(), 5);
        assert!(args[3].kw_only && !args[2].kw_only);
        assert!(compat_args("aten::foo(Tensor(a -> *) self) -> Tensor(a)").is_err());
    }
}
