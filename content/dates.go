package content

import (
	"strings"
	"time"
)

// A post's date is read as the generators read it, and no more leniently:
//
//   - Hugo reads a YAML timestamp, or a text in one of spf13/cast's
//     layouts (RFC 3339 and the ISO forms with a blank for the T, RFC 1123,
//     RFC 822, RFC 850, ANSI C, Unix and Ruby dates, "02 Jan 2006");
//   - Eleventy reads a YAML timestamp, or a text as luxon's fromISO does
//     (ISO 8601, the time optional down to the hour, the offset as Z,
//     ±hh, ±hhmm or ±hh:mm);
//   - Jekyll reads the text with Ruby's Time.parse, which takes a
//     year-first date with "-", "/" or ".", a day-first one
//     (18.11.2024, 18/11/2024), a month written out, a time of one to
//     three fields with a fraction, am or pm and a zone, and skips the
//     rest: 2024-11-18 15:04:11:57 is 15:04:11 on November 18.
//
// What a parser would only skip over is not read: a date followed by words
// ("2024-05-01 sometime", which Ruby reads as May 1) is an error, and so
// is a day the calendar does not have (2024-02-30, which Ruby rolls over
// to March 1 while Hugo and Eleventy refuse it): the owner meant
// something else. Nor are the forms only one reader takes that name no
// day (Eleventy's "2024" and "2024-11") or count weeks (2024-W47-1).

// textLayouts are the written-out dates that sites put in a date key,
// such as the Astro blog template's pubDate: 'Jul 08 2022'; a time of day
// may follow them.
var textLayouts = []string{
	displayDateLayout, "January 2 2006", "Jan 2, 2006", "Jan 2 2006", "2 January 2006", "2 Jan 2006",
	"Monday, January 2, 2006", "Mon, Jan 2, 2006", "Mon Jan 2 2006", "Monday, 2 January 2006", "Mon, 2 Jan 2006",
	"Monday January 2, 2006", "Monday January 2 2006",
}

// castLayouts are the layouts of spf13/cast that Hugo reads and that no
// rule here reads: a time before the year, or a two-digit year.
var castLayouts = []string{time.RFC822, time.RFC822Z, time.RFC850, time.ANSIC, time.UnixDate, time.RubyDate}

// parseDay reads a date as the generators do (see above). The day is the
// one written, whatever the time zone. stamp reports whether s is written
// as a timestamp, even a wrong one: a date of digits (2024-05-01,
// 18.11.2024) or a date with more after it; a written-out date alone
// (June 21, 2023) is not, nor is a text that is no date (Spring 2024),
// which is only shown.
func parseDay(s string) (t time.Time, stamp, ok bool) {
	s = strings.TrimSpace(s)
	if y, m, d, rest, ok := numericDate(s); ok {
		t, ok := withTime(y, m, d, rest)
		return t, true, ok
	}
	for _, layout := range castLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return dayOf(t), true, true
		}
	}
	// A written-out date, then maybe a time: the longest run of words that
	// is a date.
	words := strings.Fields(s)
	for n := len(words); n > 0; n-- {
		date := strings.Join(words[:n], " ")
		for _, layout := range textLayouts {
			if d, err := time.Parse(layout, date); err == nil {
				if n == len(words) {
					return d, false, true
				}
				t, ok := withTime(d.Year(), int(d.Month()), d.Day(), " "+strings.Join(words[n:], " "))
				return t, true, ok
			}
		}
	}
	return time.Time{}, false, false
}

// dayOf is the day of t as written, at midnight UTC.
func dayOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// numericDate reads the date of digits s begins with: year first
// (2024-11-18, 2024/11/18, 2024.11.18, 20241118) or day first with a
// four-digit year (18.11.2024, 18/11/2024, 18-11-2024). rest is what
// follows it.
func numericDate(s string) (year, month, day int, rest string, ok bool) {
	first, n := digits(s)
	switch {
	case n == 8 && (len(s) == 8 || !isDigit(s[8])):
		// ISO 8601's basic form
		return first / 10000, first / 100 % 100, first % 100, s[8:], true
	case n == 4 && len(s) > 4 && strings.IndexByte("-/.", s[4]) >= 0:
		sep := s[4]
		month, m := digits(s[5:])
		if m < 1 || m > 2 || len(s) <= 5+m || s[5+m] != sep {
			return 0, 0, 0, "", false
		}
		day, d := digits(s[6+m:])
		if d < 1 || d > 2 {
			return 0, 0, 0, "", false
		}
		return first, month, day, s[6+m+d:], true
	case n >= 1 && n <= 2 && len(s) > n && strings.IndexByte("-/.", s[n]) >= 0:
		sep := s[n]
		month, m := digits(s[n+1:])
		if m < 1 || m > 2 || len(s) <= n+1+m || s[n+1+m] != sep {
			return 0, 0, 0, "", false
		}
		year, y := digits(s[n+2+m:])
		if y != 4 {
			return 0, 0, 0, "", false
		}
		return year, month, first, s[n+2+m+y:], true
	}
	return 0, 0, 0, "", false
}

// withTime is the day year-month-day when rest, what follows the date, is
// empty or a time of day; ok is false when the day is not on the calendar
// or rest is anything else.
func withTime(year, month, day int, rest string) (time.Time, bool) {
	t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if t.Year() != year || int(t.Month()) != month || t.Day() != day {
		return time.Time{}, false // 2024-02-30 is not a day
	}
	if rest == "" {
		return t, true
	}
	hour, ok := timeOfDay(rest)
	if !ok {
		return time.Time{}, false
	}
	if hour == 24 {
		t = t.AddDate(0, 0, 1) // 24:00 is the next day's midnight, to every reader
	}
	return t, true
}

// timeOfDay reads what may follow a date: a "T" or blanks, then hours
// and, each after a colon, minutes, seconds (with a fraction) and further
// fields that Ruby skips; then am or pm, and a zone (Z, an offset ±h,
// ±hh, ±hhmm or ±hh:mm, an abbreviation such as UTC or CET, or an offset
// and an abbreviation). It returns the hour, 0 to 24.
func timeOfDay(s string) (hour int, ok bool) {
	switch {
	case s[0] == 'T' || s[0] == 't':
		s = s[1:]
	case s[0] == ' ' || s[0] == '\t':
		s = strings.TrimLeft(s, " \t")
	default:
		return 0, false
	}
	hour, n := digits(s)
	if n < 1 || n > 2 {
		return 0, false
	}
	s = s[n:]
	fields := []int{hour}
	for len(s) > 0 && s[0] == ':' {
		v, n := digits(s[1:])
		if n != 2 {
			return 0, false
		}
		fields = append(fields, v)
		s = s[1+n:]
		if len(fields) == 3 && len(s) > 1 && (s[0] == '.' || s[0] == ',') && isDigit(s[1]) {
			_, n := digits(s[1:])
			s = s[1+n:]
		}
	}
	for i, limit := range []int{24, 59, 60} {
		if i < len(fields) && fields[i] > limit {
			return 0, false
		}
	}
	if hour == 24 && (len(fields) > 1 && fields[1] != 0 || len(fields) > 2 && fields[2] != 0) {
		return 0, false
	}
	s = strings.TrimLeft(s, " \t")
	if lower := strings.ToLower(s); strings.HasPrefix(lower, "am") || strings.HasPrefix(lower, "pm") {
		if hour < 1 || hour > 12 {
			return 0, false
		}
		if lower[0] == 'p' && hour != 12 {
			hour += 12
		} else if lower[0] == 'a' && hour == 12 {
			hour = 0
		}
		s = strings.TrimLeft(s[2:], " \t")
	}
	if !zone(s) {
		return 0, false
	}
	return hour, true
}

// zone reports whether s is empty or a time zone: Z, an offset, an
// abbreviation in capitals, or an offset then an abbreviation.
func zone(s string) bool {
	if s == "" || s == "Z" || s == "z" {
		return true
	}
	if s[0] == '+' || s[0] == '-' {
		_, n := digits(s[1:])
		rest := s[1+n:]
		switch {
		case n == 2 && len(rest) > 0 && rest[0] == ':':
			if _, m := digits(rest[1:]); m == 2 {
				rest = rest[3:]
			} else {
				return false
			}
		case n == 1 || n == 2 || n == 4:
		default:
			return false
		}
		rest = strings.TrimLeft(rest, " \t")
		return rest == "" || abbreviation(rest)
	}
	return abbreviation(s)
}

// abbreviation reports whether s is a time zone's abbreviation: two to
// five capitals (UTC, GMT, CET, CEST, PST).
func abbreviation(s string) bool {
	if len(s) < 2 || len(s) > 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// digits reads the run of ASCII digits s begins with (at most nine):
// its value and its length.
func digits(s string) (value, n int) {
	for n < len(s) && n < 9 && isDigit(s[n]) {
		value = value*10 + int(s[n]-'0')
		n++
	}
	if n < len(s) && isDigit(s[n]) {
		return 0, 10 // longer than any date's field
	}
	return value, n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
