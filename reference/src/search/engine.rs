//! One search: the matcher, the searcher, the printer and the walk, configured as ripgrep 14.1.1
//! configures them for the flags both front ends use.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use grep_printer::{Standard, StandardBuilder, Summary, SummaryBuilder, SummaryKind};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use ignore::{DirEntry, WalkBuilder, WalkState};
use termcolor::NoColor;

use super::output::Sink;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Matching lines (with context).
    #[default]
    Standard,
    /// `-l`: paths of files with a match.
    FilesWithMatches,
    /// `-c`: matching lines per file.
    Count,
    /// `--files`: the files that would be searched.
    Files,
}

/// Everything a search needs; the front ends fill it from their own inputs.
#[derive(Debug, Clone, Default)]
pub struct SearchConfig {
    pub patterns: Vec<String>,
    pub mode: Mode,
    pub case_insensitive: bool,
    pub fixed_strings: bool,
    pub multiline: bool,
    pub multiline_dotall: bool,
    pub line_number: Option<bool>,
    pub with_filename: Option<bool>,
    pub before_context: usize,
    pub after_context: usize,
    pub max_count: Option<u64>,
    pub max_columns: Option<u64>,
    pub regex_size_limit: Option<usize>,
    pub globs: Vec<String>,
    pub types: Vec<String>,
    pub hidden: bool,
    pub no_ignore: bool,
    pub sort_by_path: bool,
    /// `--sort=modified`: oldest first (the Glob tool's order).
    pub sort_by_modified: bool,
    pub only_matching: bool,
    pub max_depth: Option<usize>,
    pub threads: Option<usize>,
    /// Paths as given; empty means the working directory, printed without `./`.
    pub paths: Vec<PathBuf>,
    /// The directory relative paths and globs are resolved against.
    pub cwd: PathBuf,
}

pub struct Outcome {
    pub matched: bool,
    /// Whether any file was searched at all.
    pub searched: bool,
    /// Messages for stderr (without the `rg: ` prefix), in order.
    pub errors: Vec<String>,
}

/// Runs the search, writing results to `out`. An error is a configuration error (bad pattern,
/// glob or type): nothing was searched.
pub fn search<W: Write + Send>(config: &SearchConfig, out: W) -> anyhow::Result<(Outcome, W)> {
    let implicit = config.paths.is_empty();
    let paths: Vec<PathBuf> = if implicit {
        vec![PathBuf::from("./")]
    } else {
        config.paths.clone()
    };
    let is_one_file = paths.len() == 1 && !config.cwd.join(&paths[0]).is_dir();
    let threads = if config.sort_by_path || config.sort_by_modified || is_one_file {
        1
    } else {
        config.threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(12)
        })
    };
    let with_filename = config.with_filename.unwrap_or(!is_one_file);
    let line_number = config.line_number.unwrap_or(false) && config.mode == Mode::Standard;
    let context = config.before_context > 0 || config.after_context > 0;
    let file_separator = (config.mode == Mode::Standard && context).then(|| b"--".to_vec());

    let matcher = if config.mode == Mode::Files {
        None
    } else {
        Some(matcher(config)?)
    };
    let walker = walk_builder(config, &paths, threads)?;
    let mmap = if paths.len() <= 10 && paths.iter().all(|p| config.cwd.join(p).is_file()) {
        // SAFETY: the maps are only read, never kept past the search of their file; a file
        // truncated underneath can at worst end the process with SIGBUS, as in ripgrep.
        unsafe { MmapChoice::auto() }
    } else {
        MmapChoice::never()
    };
    let searcher = SearcherBuilder::new()
        .line_number(line_number)
        .multi_line(config.multiline)
        .before_context(config.before_context)
        .after_context(config.after_context)
        .memory_map(mmap)
        .build();
    let printer = PrinterConfig {
        mode: config.mode,
        with_filename,
        only_matching: config.only_matching,
        max_count: config.max_count,
        max_columns: config.max_columns,
        separator_search: if threads == 1 {
            file_separator.clone()
        } else {
            None
        },
    };

    let matched = AtomicBool::new(false);
    let searched = AtomicBool::new(false);
    let errors = std::sync::Mutex::new(Vec::new());
    let shared = Shared {
        matcher: matcher.as_ref(),
        strip_dot: implicit,
        matched: &matched,
        searched: &searched,
        errors: &errors,
    };
    let out = if threads == 1 {
        // One printer straight onto the output: it streams, and puts the separator between
        // files itself.
        let mut single = Running {
            shared: &shared,
            searcher,
            printer: printer.build(out),
        };
        let entries = walker.build();
        if config.sort_by_modified {
            // Oldest first; the walk order breaks ties (a stable sort, as ripgrep's).
            let mut all: Vec<_> = entries.collect();
            all.sort_by_key(|r| {
                r.as_ref()
                    .ok()
                    .and_then(|d| d.metadata().ok())
                    .and_then(|m| m.modified().ok())
            });
            for result in all {
                single.visit(result);
            }
        } else {
            for result in entries {
                single.visit(result);
            }
        }
        single.printer.into_inner()
    } else {
        // A buffer per file, written whole; the sink puts the separator between files.
        let sink = Sink::new(out, file_separator);
        walker.build_parallel().run(|| {
            let mut mine = Running {
                shared: &shared,
                searcher: searcher.clone(),
                printer: printer.build(Vec::new()),
            };
            let sink = &sink;
            Box::new(move |result| {
                mine.visit(result);
                let buf = mine.printer.take();
                match sink.write_buffer(&buf) {
                    Ok(()) => WalkState::Continue,
                    Err(_) => WalkState::Quit,
                }
            })
        });
        sink.into_inner()
    };
    Ok((
        Outcome {
            matched: matched.load(Ordering::SeqCst),
            searched: searched.load(Ordering::SeqCst),
            errors: errors.into_inner().expect("not poisoned"),
        },
        out,
    ))
}

fn matcher(config: &SearchConfig) -> anyhow::Result<RegexMatcher> {
    let mut b = RegexMatcherBuilder::new();
    b.multi_line(true)
        .unicode(true)
        .octal(false)
        .fixed_strings(config.fixed_strings)
        .case_insensitive(config.case_insensitive);
    if config.multiline {
        b.dot_matches_new_line(config.multiline_dotall);
    } else {
        b.line_terminator(Some(b'\n')).dot_matches_new_line(false);
    }
    if let Some(limit) = config.regex_size_limit {
        b.size_limit(limit);
    }
    b.ban_byte(Some(b'\x00'));
    Ok(b.build_many(&config.patterns)?)
}

fn walk_builder(
    config: &SearchConfig,
    paths: &[PathBuf],
    threads: usize,
) -> anyhow::Result<WalkBuilder> {
    let mut builder = WalkBuilder::new(&paths[0]);
    for p in &paths[1..] {
        builder.add(p);
    }
    let mut types = TypesBuilder::new();
    types.add_defaults();
    for t in &config.types {
        types.select(t);
    }
    let mut overrides = OverrideBuilder::new(&config.cwd);
    for g in &config.globs {
        overrides.add(g)?;
    }
    builder
        .threads(threads)
        .skip_stdout(config.mode != Mode::Files)
        .overrides(overrides.build()?)
        .types(types.build()?)
        .hidden(!config.hidden)
        .max_depth(config.max_depth)
        .parents(!config.no_ignore)
        .ignore(!config.no_ignore)
        .git_global(!config.no_ignore)
        .git_ignore(!config.no_ignore)
        .git_exclude(!config.no_ignore)
        .require_git(true);
    if !config.no_ignore {
        builder.add_custom_ignore_filename(".rgignore");
    }
    if config.sort_by_path {
        builder.sort_by_file_name(|a, b| a.cmp(b));
    }
    Ok(builder)
}

struct PrinterConfig {
    mode: Mode,
    with_filename: bool,
    only_matching: bool,
    max_count: Option<u64>,
    max_columns: Option<u64>,
    separator_search: Option<Vec<u8>>,
}

enum Printer<W: Write> {
    Standard(Standard<NoColor<W>>),
    Summary(Summary<NoColor<W>>),
    Files(W),
}

impl PrinterConfig {
    fn build<W: Write>(&self, out: W) -> Printer<W> {
        match self.mode {
            Mode::Standard => Printer::Standard(
                StandardBuilder::new()
                    .heading(false)
                    .max_columns(self.max_columns)
                    .max_columns_preview(false)
                    .max_matches(self.max_count)
                    .only_matching(self.only_matching)
                    .path(self.with_filename)
                    .per_match_one_line(true)
                    .separator_context(Some(b"--".to_vec()))
                    .separator_field_context(b"-".to_vec())
                    .separator_field_match(b":".to_vec())
                    .separator_search(self.separator_search.clone())
                    .build(NoColor::new(out)),
            ),
            Mode::FilesWithMatches | Mode::Count => Printer::Summary(
                SummaryBuilder::new()
                    .kind(if self.mode == Mode::Count {
                        SummaryKind::Count
                    } else {
                        SummaryKind::PathWithMatch
                    })
                    .exclude_zero(true)
                    .max_matches(self.max_count)
                    .path(self.with_filename)
                    .separator_field(b":".to_vec())
                    .build(NoColor::new(out)),
            ),
            Mode::Files => Printer::Files(out),
        }
    }
}

impl<W: Write> Printer<W> {
    fn into_inner(self) -> W {
        match self {
            Printer::Standard(p) => p.into_inner().into_inner(),
            Printer::Summary(p) => p.into_inner().into_inner(),
            Printer::Files(w) => w,
        }
    }
}

impl Printer<Vec<u8>> {
    fn take(&mut self) -> Vec<u8> {
        match self {
            Printer::Standard(p) => std::mem::take(p.get_mut().get_mut()),
            Printer::Summary(p) => std::mem::take(p.get_mut().get_mut()),
            Printer::Files(w) => std::mem::take(w),
        }
    }
}

/// What every thread shares (all `Sync`).
struct Shared<'a> {
    matcher: Option<&'a RegexMatcher>,
    strip_dot: bool,
    matched: &'a AtomicBool,
    searched: &'a AtomicBool,
    errors: &'a std::sync::Mutex<Vec<String>>,
}

/// One thread's searcher and printer.
struct Running<'a, W: Write> {
    shared: &'a Shared<'a>,
    searcher: Searcher,
    printer: Printer<W>,
}

impl<W: Write> Running<'_, W> {
    /// Searches one walk entry; its output stays in the printer's writer.
    fn visit(&mut self, result: Result<DirEntry, ignore::Error>) {
        let dent = match result {
            Ok(d) => d,
            Err(e) => {
                self.error(e.to_string());
                return;
            }
        };
        let explicit = dent.depth() == 0 && !dent.file_type().is_some_and(|t| t.is_dir());
        let is_file = dent.file_type().is_some_and(|t| t.is_file());
        if !explicit && !is_file {
            return;
        }
        self.shared.searched.store(true, Ordering::SeqCst);
        let path = display_path(dent.path(), self.shared.strip_dot);
        // An explicitly named file is always searched through; a walked one is skipped at the
        // first NUL byte, as ripgrep does.
        self.searcher.set_binary_detection(if explicit {
            BinaryDetection::convert(b'\x00')
        } else {
            BinaryDetection::quit(b'\x00')
        });
        if let Err(e) = self.search_one(dent.path(), &path) {
            self.error(format!("{}: {e}", path.display()));
        }
    }

    fn search_one(&mut self, real: &Path, shown: &Path) -> io::Result<()> {
        let matched = match (&mut self.printer, self.shared.matcher) {
            (Printer::Files(w), _) => {
                w.write_all(shown.as_os_str().as_encoded_bytes())?;
                w.write_all(b"\n")?;
                return Ok(());
            }
            (Printer::Standard(p), Some(m)) => {
                let mut sink = p.sink_with_path(m, shown);
                self.searcher.search_path(m, real, &mut sink)?;
                sink.has_match()
            }
            (Printer::Summary(p), Some(m)) => {
                let mut sink = p.sink_with_path(m, shown);
                self.searcher.search_path(m, real, &mut sink)?;
                sink.has_match()
            }
            _ => false,
        };
        if matched {
            self.shared.matched.store(true, Ordering::SeqCst);
        }
        Ok(())
    }

    fn error(&self, message: String) {
        self.shared
            .errors
            .lock()
            .expect("not poisoned")
            .push(message);
    }
}

fn display_path(path: &Path, strip_dot: bool) -> PathBuf {
    match path.strip_prefix("./") {
        Ok(rest) if strip_dot => rest.to_owned(),
        _ => path.to_owned(),
    }
}
