//! "Now" and the local time zone the cron tools compute with.
//!
//! The zone is the user's (`TZ`, else the system's), as the seed says schedules are local. "Now"
//! is the system clock, or `CLAUDE_REFERENCE_NOW` (RFC 3339): a reference-only test setting, since
//! 2.1.235 has no way to set its clock and a scenario needs a fixed creation time. A value that
//! does not parse is an error at every use, never a silent fall back to the real clock.

use jiff::tz::TimeZone;
use jiff::Timestamp;

pub const NOW_ENV: &str = "CLAUDE_REFERENCE_NOW";

#[derive(Debug, Clone)]
pub struct Clock {
    fixed: Option<Result<i64, String>>,
    /// Looked up on first use: the system zone walks the zoneinfo database, which a session that
    /// never schedules anything should not pay for at start.
    zone: std::sync::OnceLock<TimeZone>,
}

impl Clock {
    pub fn from_env() -> Clock {
        Clock {
            fixed: std::env::var(NOW_ENV).ok().map(|v| parse_now(&v)),
            zone: std::sync::OnceLock::new(),
        }
    }

    /// A clock stopped at `now_ms` in `zone` (tests).
    pub fn fixed(now_ms: i64, zone: TimeZone) -> Clock {
        Clock {
            fixed: Some(Ok(now_ms)),
            zone: zone.into(),
        }
    }

    /// Unix milliseconds.
    pub fn now_ms(&self) -> Result<i64, String> {
        match &self.fixed {
            Some(fixed) => fixed.clone(),
            None => Ok(Timestamp::now().as_millisecond()),
        }
    }

    pub fn zone(&self) -> &TimeZone {
        self.zone.get_or_init(TimeZone::system)
    }
}

fn parse_now(value: &str) -> Result<i64, String> {
    value
        .trim()
        .parse::<Timestamp>()
        .map(Timestamp::as_millisecond)
        .map_err(|e| {
            format!(
                "{NOW_ENV} is not an RFC 3339 timestamp such as 2026-12-01T20:05:00Z: {value:?} ({e})"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_rfc3339_value_fixes_now() {
        assert_eq!(parse_now("2026-12-01T20:05:00Z"), Ok(1_796_155_500_000));
        assert_eq!(
            parse_now("2026-12-02T05:05:00+09:00"),
            Ok(1_796_155_500_000)
        );
    }

    #[test]
    fn an_unparseable_value_is_an_error_naming_the_setting() {
        for bad in ["tomorrow", "", "2026-13-01T00:00:00Z", "1796155500000"] {
            let err = parse_now(bad).unwrap_err();
            assert!(
                err.starts_with("CLAUDE_REFERENCE_NOW is not an RFC 3339"),
                "{err}"
            );
        }
    }
}
