//! The human schedule CronCreate and CronList show: a handful of common shapes in words, every
//! other expression as written (recorded on 2.1.235: `0,30 9 * * *` and `0 9 * * 5-7` come back
//! verbatim). Times are en-US 12-hour clock times, `9:00 AM`.

use super::expr::fields;

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

pub fn describe(expr: &str) -> String {
    let parts = fields(expr);
    let [minute, hour, dom, month, dow] = parts[..] else {
        return expr.to_owned();
    };
    let rest_any = dom == "*" && month == "*" && dow == "*";
    if hour == "*" && rest_any {
        if minute == "*" {
            return "Every minute".into();
        }
        if let Some(n) = every(minute) {
            return if n == 1 {
                "Every minute".into()
            } else {
                format!("Every {n} minutes")
            };
        }
    }
    if let (Some(m), "*", true) = (digits(minute), hour, rest_any) {
        return if m == 0 {
            "Every hour".into()
        } else {
            format!("Every hour at :{m:02}")
        };
    }
    if let (Some(m), Some(n), true) = (digits(minute), every(hour), rest_any) {
        let at = if m == 0 {
            String::new()
        } else {
            format!(" at :{m:02}")
        };
        return if n == 1 {
            format!("Every hour{at}")
        } else {
            format!("Every {n} hours{at}")
        };
    }
    let (Some(m), Some(h)) = (digits(minute), digits(hour)) else {
        return expr.to_owned();
    };
    let time = clock(h, m);
    if rest_any {
        return format!("Every day at {time}");
    }
    if dom == "*" && month == "*" {
        if dow.len() == 1 && dow.as_bytes()[0].is_ascii_digit() {
            let day = WEEKDAYS[usize::from(dow.as_bytes()[0] - b'0') % 7];
            return format!("Every {day} at {time}");
        }
        if dow == "1-5" {
            return format!("Weekdays at {time}");
        }
    }
    expr.to_owned()
}

/// `*/n`: its n.
fn every(field: &str) -> Option<u64> {
    digits(field.strip_prefix("*/")?)
}

fn digits(field: &str) -> Option<u64> {
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(field.parse().unwrap_or(u64::MAX))
}

/// en-US `toLocaleTimeString` with numeric hour and 2-digit minute: `12:05 AM`, `1:30 PM`.
fn clock(hour: u64, minute: u64) -> String {
    let h12 = match hour % 12 {
        0 => 12,
        h => h,
    };
    let half = if hour % 24 < 12 { "AM" } else { "PM" };
    format!("{h12}:{minute:02} {half}")
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn recorded_schedules() {
        // Each pair as 2.1.235 showed it (exp.cron-1, exp.cron-2, exp.cron-3).
        for (expr, human) in [
            ("0 9 * * *", "Every day at 9:00 AM"),
            ("*/5 * * * *", "Every 5 minutes"),
            ("30 14 28 2 *", "30 14 28 2 *"),
            ("0 9 * * 7", "Every Sunday at 9:00 AM"),
            ("  0   9 * * *  ", "Every day at 9:00 AM"),
            ("0 9 * * 1-5", "Weekdays at 9:00 AM"),
            ("30 */2 * * *", "Every 2 hours at :30"),
            ("0 */1 * * *", "Every hour"),
            ("15 * * * *", "Every hour at :15"),
            ("0 0 * * *", "Every day at 12:00 AM"),
            ("30 13 * * *", "Every day at 1:30 PM"),
            ("0 12 * * *", "Every day at 12:00 PM"),
            ("5 8 * * 0", "Every Sunday at 8:05 AM"),
            ("0,30 9 * * *", "0,30 9 * * *"),
            ("*/1 * * * *", "Every minute"),
            ("* * * * *", "Every minute"),
            ("0 0 29 2 *", "0 0 29 2 *"),
            ("0 9 * * 5-7", "0 9 * * 5-7"),
            ("0 9 * * 1,3", "0 9 * * 1,3"),
            ("0\t9 * * *", "Every day at 9:00 AM"),
            ("0 * * * *", "Every hour"),
            ("0 10 1 1 *", "0 10 1 1 *"),
        ] {
            assert_eq!(describe(expr), human, "{expr:?}");
        }
    }

    #[test]
    fn other_shapes_from_the_binary_rules() {
        assert_eq!(describe("0 */3 * * *"), "Every 3 hours");
        assert_eq!(describe("7 */1 * * *"), "Every hour at :07");
        assert_eq!(describe("0 9 * * 3"), "Every Wednesday at 9:00 AM");
        assert_eq!(describe("* 9 * * *"), "* 9 * * *");
        assert_eq!(describe("0 9 * *"), "0 9 * *");
    }
}
