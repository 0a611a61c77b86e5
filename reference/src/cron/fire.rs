//! When a job fires: the next match of its expression plus the scheduler's deterministic offsets,
//! and when a recurring job has aged out. The constants are the seed's local fallback
//! configuration (004 line 280), not the 10% / 15 minutes the model-visible prompt claims
//! (line 281): those are in the limits table as prompt claims and used nowhere here.
//!
//! The offsets come from the job id, so the same job always lands at the same time and many jobs
//! on the same expression spread out instead of firing together:
//! - recurring: a delay of `fraction(id) × 50%` of the period (the gap between the next two
//!   matches), capped at 30 minutes; an every-5-minutes job (`*/5 * * * *`) instead fires a
//!   cache lead (15 s) before its period has passed since the last fire;
//! - one-shot: only when the match lands on :00 or :30, up to 90 s early, never before the
//!   time it was computed from.

use jiff::tz::TimeZone;

use super::expr::Cron;
use super::store::Job;
use crate::limits;

/// The scheduler's offsets and expiry (2.1.235 can be sent others remotely; the reference uses
/// the local fallback always).
#[derive(Debug, Clone, Copy)]
pub struct Jitter {
    pub recurring_frac: f64,
    pub recurring_cap_ms: i64,
    pub one_shot_max_ms: i64,
    pub one_shot_floor_ms: i64,
    pub one_shot_minute_mod: i8,
    pub recurring_max_age_ms: i64,
    pub cache_lead_ms: i64,
    pub cache_lead_period_ms: i64,
}

impl Jitter {
    pub fn fallback() -> Jitter {
        Jitter {
            recurring_frac: limits::CRON_JITTER_MAX_PERIOD_RATIO.get() as f64 / 100.0,
            recurring_cap_ms: limits::CRON_JITTER_CAP.get() as i64,
            one_shot_max_ms: limits::CRON_ONE_SHOT_MAX_EARLY.get() as i64,
            one_shot_floor_ms: limits::CRON_ONE_SHOT_MIN_EARLY.get() as i64,
            one_shot_minute_mod: limits::CRON_ONE_SHOT_EARLY_MARK_INTERVAL.get() as i8,
            recurring_max_age_ms: limits::CRON_RECURRING_MAX_AGE.get() as i64,
            cache_lead_ms: limits::CRON_CACHE_LEAD.get() as i64,
            cache_lead_period_ms: limits::CRON_CACHE_LEAD_PERIOD.get() as i64,
        }
    }
}

/// The job's share of the allowed offset, in [0, 1): its id's leading hex digits (up to 8) over
/// 2^32. 2.1.235 uses `parseInt(id.slice(0, 8), 16)`, which also takes a sign or a `0x` prefix;
/// every id either agent makes is 8 plain hex digits, and the reference keeps the offset a delay
/// for hand-written ids too.
pub fn id_fraction(id: &str) -> f64 {
    let hex: String = id
        .chars()
        .take(8)
        .take_while(char::is_ascii_hexdigit)
        .collect();
    u32::from_str_radix(&hex, 16).map_or(0.0, |n| f64::from(n) / 4_294_967_296.0)
}

/// A recurring job's next fire time after `from_ms` (its last fire, or its creation). Milliseconds
/// are floored (2.1.235 keeps the fraction; no clock it is compared with has one).
pub fn recurring(expr: &str, from_ms: i64, id: &str, cfg: &Jitter, tz: &TimeZone) -> Option<i64> {
    let cron = Cron::parse(expr)?;
    let first = cron.next_after(from_ms, tz)?;
    let Some(second) = cron.next_after(first, tz) else {
        return Some(first);
    };
    let period = second - first;
    if is_every_n_minutes(expr)
        && cfg.cache_lead_ms > 0
        && cfg.cache_lead_ms < period
        && period >= cfg.cache_lead_period_ms
        && period - cfg.cache_lead_ms < cfg.cache_lead_period_ms
    {
        return Some(from_ms + period - cfg.cache_lead_ms);
    }
    let delay = (id_fraction(id) * cfg.recurring_frac * period as f64)
        .min(cfg.recurring_cap_ms as f64)
        .floor() as i64;
    Some(first + delay)
}

/// A one-shot job's fire time: its first match after `created_ms`, early by the job's share of
/// the allowed lead when that match is on a :00/:30 mark, never before `created_ms`.
pub fn one_shot(expr: &str, created_ms: i64, id: &str, cfg: &Jitter, tz: &TimeZone) -> Option<i64> {
    let at = Cron::parse(expr)?.next_after(created_ms, tz)?;
    let minute = tz
        .to_datetime(jiff::Timestamp::from_millisecond(at).ok()?)
        .minute();
    if minute % cfg.one_shot_minute_mod != 0 {
        return Some(at);
    }
    let early = cfg.one_shot_floor_ms as f64
        + id_fraction(id) * (cfg.one_shot_max_ms - cfg.one_shot_floor_ms) as f64;
    Some((at - early.floor() as i64).max(created_ms))
}

/// A recurring job past its maximum age is deleted after its next fire; `permanent` jobs never
/// age, and an age of 0 switches expiry off.
pub fn aged(recurring: bool, permanent: bool, created_ms: i64, now_ms: i64, cfg: &Jitter) -> bool {
    cfg.recurring_max_age_ms != 0
        && recurring
        && !permanent
        && now_ms - created_ms >= cfg.recurring_max_age_ms
}

/// When the scheduler fires `job` first: a recurring job counted from its last fire (else its
/// creation), a one-shot from its creation. `None`: never (its expression names no date).
pub fn next_fire(job: &Job, cfg: &Jitter, tz: &TimeZone) -> Option<i64> {
    if job.recurring {
        let from = job
            .last_fired_at
            .as_ref()
            .and_then(serde_json::Number::as_f64)
            .map_or_else(|| job.created_ms(), |ms| ms.floor() as i64);
        recurring(&job.cron, from, &job.id, cfg, tz)
    } else {
        one_shot(&job.cron, job.created_ms(), &job.id, cfg, tz)
    }
}

/// Exactly `*/N * * * *` (single spaces, as 2.1.235's pattern): the jobs the cache lead applies to.
fn is_every_n_minutes(expr: &str) -> bool {
    expr.strip_prefix("*/")
        .and_then(|rest| rest.strip_suffix(" * * * *"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;
    use proptest::prelude::*;

    fn ms(text: &str) -> i64 {
        text.parse::<Timestamp>().unwrap().as_millisecond()
    }

    const MINUTE: i64 = 60_000;

    #[test]
    fn fraction_is_the_id_prefix_over_two_to_the_32() {
        assert_eq!(id_fraction("00000000"), 0.0);
        assert_eq!(id_fraction("80000000"), 0.5);
        assert_eq!(id_fraction("ffffffff"), 4_294_967_295.0 / 4_294_967_296.0);
        // Only the first 8 characters, only leading hex digits.
        assert_eq!(id_fraction("80000000ffff"), 0.5);
        assert_eq!(id_fraction("8zzz"), 8.0 / 4_294_967_296.0);
        assert_eq!(id_fraction("nothex"), 0.0);
    }

    #[test]
    fn recurring_delay_is_the_ids_share_of_half_the_period() {
        let cfg = Jitter::fallback();
        let tz = TimeZone::UTC;
        let from = ms("2026-12-02T00:00:30Z");
        // Hourly: period 60 min, half of it 30 min (= the cap); id fraction 0.5 → 15 min late.
        assert_eq!(
            recurring("0 * * * *", from, "80000000", &cfg, &tz),
            Some(ms("2026-12-02T01:15:00Z"))
        );
        // Daily: half the period is 12 h, so the 30-minute cap decides.
        assert_eq!(
            recurring("0 9 * * *", from, "ffffffff", &cfg, &tz),
            Some(ms("2026-12-02T09:30:00Z"))
        );
        assert_eq!(
            recurring("0 9 * * *", from, "00000000", &cfg, &tz),
            Some(ms("2026-12-02T09:00:00Z"))
        );
    }

    #[test]
    fn every_five_minutes_fires_a_cache_lead_early() {
        let cfg = Jitter::fallback();
        let from = ms("2026-12-02T00:02:10Z");
        // Whatever the id: last fire + 5 min − 15 s.
        for id in ["00000000", "ffffffff"] {
            assert_eq!(
                recurring("*/5 * * * *", from, id, &cfg, &TimeZone::UTC),
                Some(from + 5 * MINUTE - 15_000)
            );
        }
        // Other periods take the ordinary delay.
        assert_eq!(
            recurring("*/10 * * * *", from, "80000000", &cfg, &TimeZone::UTC),
            Some(ms("2026-12-02T00:12:30Z"))
        );
    }

    #[test]
    fn one_shot_on_the_half_hour_fires_early_otherwise_on_time() {
        let cfg = Jitter::fallback();
        let tz = TimeZone::UTC;
        let created = ms("2026-12-02T00:00:00Z");
        assert_eq!(
            one_shot("30 9 * * *", created, "80000000", &cfg, &tz),
            Some(ms("2026-12-02T09:29:15Z"))
        );
        assert_eq!(
            one_shot("31 9 * * *", created, "ffffffff", &cfg, &tz),
            Some(ms("2026-12-02T09:31:00Z"))
        );
        // Never before the time it was created.
        let just_before = ms("2026-12-02T09:29:50Z");
        assert_eq!(
            one_shot("30 9 * * *", just_before, "ffffffff", &cfg, &tz),
            Some(just_before)
        );
    }

    #[test]
    fn recurring_jobs_age_out_after_seven_days_unless_permanent() {
        let cfg = Jitter::fallback();
        let week = 7 * 24 * 60 * MINUTE;
        assert!(!aged(true, false, 0, week - 1, &cfg));
        assert!(aged(true, false, 0, week, &cfg));
        assert!(!aged(true, true, 0, 10 * week, &cfg));
        assert!(!aged(false, false, 0, 10 * week, &cfg));
        let off = Jitter {
            recurring_max_age_ms: 0,
            ..cfg
        };
        assert!(!aged(true, false, 0, 10 * week, &off));
    }

    #[test]
    fn a_job_is_timed_from_its_last_fire_or_its_creation() {
        let cfg = Jitter::fallback();
        let tz = TimeZone::get("Asia/Tokyo").unwrap();
        let mut job = Job {
            id: "00000000".into(),
            cron: "0 9 * * *".into(),
            prompt: "p".into(),
            created_at: ms("2026-12-01T20:05:00Z").into(),
            last_fired_at: None,
            recurring: true,
            permanent: false,
            created_by_session_id: None,
            created_by_pid: None,
            created_by_proc_start: None,
            durable: false,
        };
        // 9:00 in Tokyo is 00:00Z.
        assert_eq!(next_fire(&job, &cfg, &tz), Some(ms("2026-12-02T00:00:00Z")));
        job.last_fired_at = Some(ms("2026-12-02T00:00:00Z").into());
        assert_eq!(next_fire(&job, &cfg, &tz), Some(ms("2026-12-03T00:00:00Z")));
        job.recurring = false;
        job.cron = "30 9 * * *".into();
        job.id = "ffffffff".into();
        let on_time = ms("2026-12-02T00:30:00Z");
        let at = next_fire(&job, &cfg, &tz).unwrap();
        assert!(at < on_time && on_time - at <= 90_000, "{at}");
    }

    fn simple_cron() -> impl Strategy<Value = String> {
        prop_oneof![
            (1u32..60).prop_map(|n| format!("*/{n} * * * *")),
            (0u32..60).prop_map(|m| format!("{m} * * * *")),
            (0u32..60, 1u32..24).prop_map(|(m, n)| format!("{m} */{n} * * *")),
            (0u32..60, 0u32..24).prop_map(|(m, h)| format!("{m} {h} * * *")),
            (0u32..60, 0u32..24, 0u32..8).prop_map(|(m, h, d)| format!("{m} {h} * * {d}")),
            (0u32..60, 0u32..24, 1u32..29, 1u32..13)
                .prop_map(|(m, h, d, mo)| format!("{m} {h} {d} {mo} *")),
            (0u32..60, 0u32..24).prop_map(|(m, h)| format!("{m},{} {h} * * 1-5", (m + 7) % 60)),
        ]
    }

    fn zone() -> impl Strategy<Value = TimeZone> {
        prop_oneof![
            Just(TimeZone::UTC),
            Just(TimeZone::get("Asia/Tokyo").unwrap()),
            Just(TimeZone::get("America/New_York").unwrap()),
            Just(TimeZone::get("Asia/Kolkata").unwrap()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The delay after the next match is at most half the period and at most 30 minutes, and
        /// never negative; the same job always gets the same time.
        #[test]
        fn recurring_delay_is_bounded(
            expr in simple_cron(),
            id in "[0-9a-f]{8}",
            from in 1_700_000_000_000i64..1_900_000_000_000,
            tz in zone(),
        ) {
            let cfg = Jitter::fallback();
            let cron = Cron::parse(&expr).unwrap();
            let first = cron.next_after(from, &tz).unwrap();
            let period = cron.next_after(first, &tz).unwrap() - first;
            let at = recurring(&expr, from, &id, &cfg, &tz).unwrap();
            prop_assert_eq!(Some(at), recurring(&expr, from, &id, &cfg, &tz));
            if is_every_n_minutes(&expr) && period == cfg.cache_lead_period_ms {
                prop_assert_eq!(at, from + period - cfg.cache_lead_ms);
            } else {
                let delay = at - first;
                prop_assert!(delay >= 0, "{} fires {} ms before its match", expr, -delay);
                prop_assert!(delay * 2 <= period, "{} delay {} over half of {}", expr, delay, period);
                prop_assert!(delay <= limits::CRON_JITTER_CAP.get() as i64);
            }
        }

        /// A one-shot fires at most 90 s early and only on :00/:30, never late, never before the
        /// time it was created.
        #[test]
        fn one_shot_is_at_most_ninety_seconds_early_and_never_late(
            expr in simple_cron(),
            id in "[0-9a-f]{8}",
            created in 1_700_000_000_000i64..1_900_000_000_000,
            tz in zone(),
        ) {
            let cfg = Jitter::fallback();
            let matched = Cron::parse(&expr).unwrap().next_after(created, &tz).unwrap();
            let at = one_shot(&expr, created, &id, &cfg, &tz).unwrap();
            prop_assert!(at <= matched, "late");
            prop_assert!(at >= created);
            prop_assert!(matched - at <= limits::CRON_ONE_SHOT_MAX_EARLY.get() as i64);
            let minute = tz.to_datetime(Timestamp::from_millisecond(matched).unwrap()).minute();
            if minute % 30 != 0 {
                prop_assert_eq!(at, matched);
            }
        }

        /// Age is measured from creation only: 7 days exactly is aged, a millisecond less is not.
        #[test]
        fn max_age_is_seven_days(created in 0i64..2_000_000_000_000, extra in 0i64..10_000_000) {
            let cfg = Jitter::fallback();
            let week = limits::CRON_RECURRING_MAX_AGE.get() as i64;
            prop_assert_eq!(week, 7 * 24 * 3_600_000);
            prop_assert!(!aged(true, false, created, created + week - 1 - extra.min(week - 1), &cfg));
            prop_assert!(aged(true, false, created, created + week + extra, &cfg));
        }
    }
}
