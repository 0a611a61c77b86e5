//! Five-field cron expressions (`M H DoM Mon DoW`) as 2.1.235 reads them, and their next match in
//! local time.
//!
//! The grammar is the binary's, not a general cron's: numbers, `*`, `*/n`, `a-b`, `a-b/n` and
//! comma lists of those; no names (`MON`), no `?`, `L` or `W`, no `n/step`. Day of week is 0-6
//! with 7 accepted for Sunday. Day of month and day of week combine as in Vixie cron: when both
//! are restricted a day matching either matches.
//!
//! The next match walks local time the way 2.1.235's loop walks a JavaScript `Date`: every read
//! is a local field of an instant, every write sets local fields and converts back with the
//! "compatible" rule (a time in a DST gap moves forward, a repeated time takes its first
//! occurrence), so DST days give the instants the real binary gives.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use crate::limits;

/// A parsed expression: the values each field allows, as bit sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cron {
    minute: u64,
    hour: u64,
    day_of_month: u64,
    month: u64,
    day_of_week: u64,
}

struct Range {
    min: u64,
    max: u64,
}

const FIELDS: [Range; 5] = [
    Range { min: 0, max: 59 },
    Range { min: 0, max: 23 },
    Range { min: 1, max: 31 },
    Range { min: 1, max: 12 },
    Range { min: 0, max: 6 },
];

/// JavaScript's `\s` (what the binary trims and splits on): Unicode white space without U+0085,
/// plus the byte-order mark.
pub fn js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// The fields of an expression as the binary splits them (trimmed, split on runs of spaces).
pub fn fields(expr: &str) -> Vec<&str> {
    let trimmed = expr.trim_matches(js_space);
    if trimmed.is_empty() {
        return vec![""];
    }
    trimmed.split(js_space).filter(|f| !f.is_empty()).collect()
}

impl Cron {
    /// `None` for anything 2.1.235 calls an invalid cron expression (wrong field count, a value
    /// out of range, an unknown form).
    pub fn parse(expr: &str) -> Option<Cron> {
        let parts = fields(expr);
        if parts.len() != limits::CRON_EXPRESSION_FIELDS.usize() {
            return None;
        }
        let mut sets = [0u64; 5];
        for (i, part) in parts.iter().enumerate() {
            sets[i] = field(part, &FIELDS[i])?;
        }
        let [minute, hour, day_of_month, month, day_of_week] = sets;
        Some(Cron {
            minute,
            hour,
            day_of_month,
            month,
            day_of_week,
        })
    }

    /// The first matching minute strictly after `after_ms` (Unix milliseconds), in `tz`; `None`
    /// when the expression names no calendar date (Feb 30) or the walk gives up.
    pub fn next_after(&self, after_ms: i64, tz: &TimeZone) -> Option<i64> {
        if !self.has_calendar_date() {
            // The walk could only run out its step budget; the answer is the same.
            return None;
        }
        let local = |ts: Timestamp| tz.to_datetime(ts);
        let set = |dt: DateTime| tz.to_timestamp(dt).ok();
        let start = local(Timestamp::from_millisecond(after_ms).ok()?);
        let mut c = set(start.with().second(0).subsec_nanosecond(0).build().ok()?)?;
        c = set(local(c).checked_add(1.minute()).ok()?)?;
        let all_days = self.day_of_month.count_ones() == 31;
        let all_weekdays = self.day_of_week.count_ones() == 7;
        for _ in 0..limits::CRON_NEXT_MATCH_STEPS.get() {
            let dt = local(c);
            if !has(self.month, dt.month()) {
                let next_month = dt.date().first_of_month().checked_add(1.month()).ok()?;
                c = set(next_month.to_datetime(dt.time()))?;
                c = set(midnight(local(c).date()))?;
                continue;
            }
            let dom = has(self.day_of_month, dt.day());
            let dow = has(self.day_of_week, dt.weekday().to_sunday_zero_offset());
            let day_ok = match (all_days, all_weekdays) {
                (true, true) => true,
                (true, false) => dow,
                (false, true) => dom,
                (false, false) => dom || dow,
            };
            if !day_ok {
                c = set(dt.date().tomorrow().ok()?.to_datetime(dt.time()))?;
                c = set(midnight(local(c).date()))?;
                continue;
            }
            if !has(self.hour, dt.hour()) {
                c = set(midnight(dt.date())
                    .checked_add((i64::from(dt.hour()) + 1).hours())
                    .ok()?)?;
                continue;
            }
            if !has(self.minute, dt.minute()) {
                c = set(dt.checked_add(1.minute()).ok()?)?;
                continue;
            }
            return Some(c.as_millisecond());
        }
        None
    }

    /// Some allowed month has an allowed day of month (Feb 29 counts), or the day of week
    /// decides: otherwise no date ever matches.
    fn has_calendar_date(&self) -> bool {
        let all_weekdays = self.day_of_week.count_ones() == 7;
        let all_days = self.day_of_month.count_ones() == 31;
        if !all_weekdays || all_days {
            return true;
        }
        (1..=12i8).filter(|m| has(self.month, *m)).any(|m| {
            let longest = Date::new(2000, m, 1).map_or(31, |d| d.days_in_month());
            (1..=longest).any(|d| has(self.day_of_month, d))
        })
    }
}

fn has(set: u64, value: i8) -> bool {
    (0..64).contains(&value) && set & (1 << value) != 0
}

fn midnight(date: Date) -> DateTime {
    date.to_datetime(jiff::civil::Time::midnight())
}

/// One field: a comma list of `*`, `*/n`, `a-b`, `a-b/n` and numbers, each inside the field's
/// range (day of week also takes 7 for Sunday).
fn field(text: &str, range: &Range) -> Option<u64> {
    let weekday = range.min == 0 && range.max == 6;
    let mut set = 0u64;
    for part in text.split(',') {
        if let Some(rest) = part.strip_prefix('*') {
            let step = match rest.strip_prefix('/') {
                None if rest.is_empty() => 1,
                Some(n) => number(n)?,
                None => return None,
            };
            if step < 1 {
                return None;
            }
            let mut v = range.min;
            while v <= range.max {
                set |= 1 << v;
                v = v.saturating_add(step);
            }
        } else if let Some((from, rest)) = part.split_once('-') {
            let (to, step) = match rest.split_once('/') {
                Some((to, step)) => (number(to)?, number(step)?),
                None => (number(rest)?, 1),
            };
            let from = number(from)?;
            let top = if weekday { 7 } else { range.max };
            if from > to || step < 1 || from < range.min || to > top {
                return None;
            }
            let mut v = from;
            while v <= to {
                set |= 1 << if weekday && v == 7 { 0 } else { v };
                v = v.saturating_add(step);
            }
        } else {
            let mut v = number(part)?;
            if weekday && v == 7 {
                v = 0;
            }
            if v < range.min || v > range.max {
                return None;
            }
            set |= 1 << v;
        }
    }
    (set != 0).then_some(set)
}

/// ASCII digits only (JavaScript's `\d`); a number too big for u64 is simply out of range.
fn number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse().unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokyo() -> TimeZone {
        TimeZone::get("Asia/Tokyo").unwrap()
    }

    fn ms(text: &str) -> i64 {
        text.parse::<Timestamp>().unwrap().as_millisecond()
    }

    fn next(expr: &str, after: &str, tz: &TimeZone) -> Option<String> {
        let at = Cron::parse(expr).unwrap().next_after(ms(after), tz)?;
        Some(Timestamp::from_millisecond(at).unwrap().to_string())
    }

    #[test]
    fn accepts_what_the_binary_accepts() {
        // Recorded on 2.1.235 (exp.cron-2): each of these was scheduled.
        for ok in [
            "0 9 * * 7",
            "  0   9 * * *  ",
            "0\t9 * * *",
            "0 9 * * 1-5",
            "30 */2 * * *",
            "0,30 9 * * *",
            "*/1 * * * *",
            "0 0 29 2 *",
            "0 9 * * 5-7",
            "0 9 * * 1,3",
        ] {
            assert!(Cron::parse(ok).is_some(), "{ok:?} should parse");
        }
    }

    #[test]
    fn rejects_what_the_binary_rejects() {
        // Recorded on 2.1.235 (exp.cron-2): each was "Invalid cron expression".
        for bad in [
            "* * * *",
            "* * * * * *",
            "60 * * * *",
            "0 24 * * *",
            "0 0 0 * *",
            "0 0 1 13 *",
            "0 9 * * 8",
            "abc * * * *",
            "0 9 * * MON",
            "5/10 * * * *",
            "",
            "*/0 * * * *",
            "5-1 * * * *",
            "0 9 ? * *",
            "1,,2 * * * *",
        ] {
            assert!(Cron::parse(bad).is_none(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn weekday_seven_is_sunday() {
        assert_eq!(Cron::parse("0 9 * * 7"), Cron::parse("0 9 * * 0"));
        assert_eq!(Cron::parse("0 9 * * 5-7"), Cron::parse("0 9 * * 0,5,6"));
    }

    #[test]
    fn next_match_is_in_local_time() {
        let tz = tokyo();
        // 2026-12-01T20:05Z is 05:05 on Dec 2 in Tokyo: 9:00 local is 00:00Z the same day.
        assert_eq!(
            next("0 9 * * *", "2026-12-01T20:05:00Z", &tz).as_deref(),
            Some("2026-12-02T00:00:00Z")
        );
        // Strictly after: a time on the minute itself moves on to the next match.
        assert_eq!(
            next("0 9 * * *", "2026-12-02T00:00:00Z", &tz).as_deref(),
            Some("2026-12-03T00:00:00Z")
        );
        assert_eq!(
            next("*/5 * * * *", "2026-12-01T20:05:59.900Z", &tz).as_deref(),
            Some("2026-12-01T20:10:00Z")
        );
    }

    #[test]
    fn day_of_month_or_day_of_week_when_both_are_restricted() {
        let tz = TimeZone::UTC;
        // 2026-12-02 is a Wednesday; the 15th is a Tuesday. Friday the 4th comes first.
        assert_eq!(
            next("0 0 15 * 5", "2026-12-02T00:00:00Z", &tz).as_deref(),
            Some("2026-12-04T00:00:00Z")
        );
        // With the day of week unrestricted only the date counts.
        assert_eq!(
            next("0 0 15 * *", "2026-12-02T00:00:00Z", &tz).as_deref(),
            Some("2026-12-15T00:00:00Z")
        );
    }

    #[test]
    fn impossible_dates_never_match_and_leap_days_do() {
        let tz = tokyo();
        assert_eq!(next("0 0 30 2 *", "2026-12-01T20:05:00Z", &tz), None);
        assert_eq!(next("0 0 31 4,6,9,11 *", "2026-12-01T20:05:00Z", &tz), None);
        assert_eq!(
            next("0 0 29 2 *", "2026-12-01T20:05:00Z", &tz).as_deref(),
            Some("2028-02-28T15:00:00Z")
        );
    }

    #[test]
    fn a_time_in_a_dst_gap_fires_after_the_gap_and_a_repeated_time_once() {
        let ny = TimeZone::get("America/New_York").unwrap();
        // 2026-03-08 02:00 local does not exist (clocks jump to 03:00): the walk, like the
        // binary's, steps past the hour and matches 2:30 only on the next day.
        assert_eq!(
            next("30 2 * * *", "2026-03-08T06:00:00Z", &ny).as_deref(),
            Some("2026-03-09T06:30:00Z")
        );
        // 2026-11-01 01:30 happens twice; the first (EDT, -04:00) is the match.
        assert_eq!(
            next("30 1 * * *", "2026-11-01T04:00:00Z", &ny).as_deref(),
            Some("2026-11-01T05:30:00Z")
        );
    }
}
