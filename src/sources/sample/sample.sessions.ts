import { easterSunday } from "../../platform/clock";
import { makeDay, SECONDS_PER_DAY, weekday } from "./sample.calendar";

/**
 * Exchange sessions and holidays of the sample's exchanges.
 *
 * A session is given in the exchange's local time and turned into UTC with
 * the IANA time zone (Intl), so daylight saving time moves it as it moves the
 * real market. Holidays are computed from each market's rules (fixed dates,
 * weekday rules, Easter, observed-day shifts, the lunar and equinox holidays of
 * Hong Kong and Tokyo) plus the few one-off closures of the sample's window.
 * Early closes are not modelled: a session that trades is a full one.
 */

/** Which holiday rules an exchange follows. */
export type HolidayCalendar = "US" | "CA" | "DE" | "GB" | "EURONEXT" | "CH" | "JP" | "AU" | "HK";

export interface SessionHours {
  /** IANA time zone of the local hours. */
  timezone: string;
  /** Local opening and closing times, "HH:MM"; "24:00" closes at the day's end. */
  open: string;
  close: string;
  /** null: trades every day the market trades (crypto every day, forex every weekday). */
  holidays: HolidayCalendar | null;
}

export interface Session {
  /** Unix seconds (UTC). */
  open: number;
  close: number;
}

const HHMM = /^(\d{2}):(\d{2})$/;

function localSeconds(hhmm: string): number {
  const m = HHMM.exec(hhmm);
  if (!m) throw new Error(`Invalid local time "${hhmm}", expected HH:MM`);
  return Number(m[1]) * 3600 + Number(m[2]) * 60;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Seconds the zone's wall clock is ahead of UTC at instant `t` (Unix seconds). */
export function zoneOffset(timezone: string, t: number): number {
  if (timezone === "UTC") return 0;
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timezone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(t * 1000)))
    if (part.type !== "literal") p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year as number, (p.month as number) - 1, p.day, p.hour, p.minute, p.second) / 1000;
  return wall - t;
}

/** The UTC instant of local time `seconds` after midnight of `day` in `timezone`. */
export function localToUtc(timezone: string, day: number, seconds: number): number {
  const wall = day * SECONDS_PER_DAY + seconds;
  // Twice: the offset at the first guess may be the other side of a DST change; sessions never straddle one.
  const first = wall - zoneOffset(timezone, wall);
  return wall - zoneOffset(timezone, first);
}

const sessionCache = new Map<string, Session>();

/**
 * The session of `hours` on `day` (days since 1970-01-01) in UTC, or null when
 * the market is closed that day (a weekend for exchanges and forex, or a
 * holiday). Pure: the same arguments always give the same answer.
 */
export function sessionOn(hours: SessionHours, day: number): Session | null {
  if (!isTradingDay(hours, day)) return null;
  const key = `${hours.timezone}|${hours.open}|${hours.close}|${day}`;
  let s = sessionCache.get(key);
  if (!s) {
    s = {
      open: localToUtc(hours.timezone, day, localSeconds(hours.open)),
      close: localToUtc(hours.timezone, day, localSeconds(hours.close)),
    };
    sessionCache.set(key, s);
  }
  return s;
}

/** Whether the market trades on `day`: a weekday that is not a holiday; a UTC market without holidays every day. */
export function isTradingDay(hours: SessionHours, day: number): boolean {
  if (hours.holidays === null && hours.timezone === "UTC") return true;
  const w = weekday(day);
  if (w === 0 || w === 6) return false;
  return hours.holidays === null || !isHoliday(hours.holidays, day);
}

const holidayCache = new Map<string, ReadonlySet<number>>();

/** Days since 1970 a mask covers (to 2149); later days are computed without one. */
const MASK_DAYS = 65_000;
/** Per calendar, per day: 0 not computed yet, 1 no holiday, 2 holiday. The bar loops ask once per bar. */
const masks = new Map<HolidayCalendar, Uint8Array>();

export function isHoliday(calendar: HolidayCalendar, day: number): boolean {
  if (!(day >= 0 && day < MASK_DAYS)) return holidaysOf(calendar, new Date(day * 86400000).getUTCFullYear()).has(day);
  let mask = masks.get(calendar);
  if (!mask) {
    mask = new Uint8Array(MASK_DAYS);
    masks.set(calendar, mask);
  }
  if (mask[day] === 0) {
    const year = new Date(day * 86400000).getUTCFullYear();
    mask.fill(1, makeDay(year, 1, 1), Math.min(MASK_DAYS, makeDay(year + 1, 1, 1)));
    for (const d of holidaysOf(calendar, year)) mask[d] = 2;
  }
  return mask[day] === 2;
}

/** The weekday holidays of `calendar` in `year`, as day numbers. */
export function holidaysOf(calendar: HolidayCalendar, year: number): ReadonlySet<number> {
  const key = `${calendar}|${year}`;
  let set = holidayCache.get(key);
  if (!set) {
    set = new Set(RULES[calendar](year).filter((d) => weekday(d) !== 0 && weekday(d) !== 6));
    holidayCache.set(key, set);
  }
  return set;
}

/** Easter Sunday as a day of the sample's calendar. */
export function easter(year: number): number {
  const { month, day } = easterSunday(year);
  return makeDay(year, month, day);
}

/** The `n`-th (1-based) `wd` (0 = Sunday) of a month; n = -1 for the last. */
function nthWeekday(year: number, month: number, wd: number, n: number): number {
  if (n > 0) {
    const first = makeDay(year, month, 1);
    return first + ((wd - weekday(first) + 7) % 7) + 7 * (n - 1);
  }
  const last = makeDay(year, month + 1, 0);
  return last - ((weekday(last) - wd + 7) % 7);
}

const MON = 1;
const THU = 4;

/** US style: a Saturday holiday is kept the Friday before, a Sunday one the Monday after. */
function nearestWeekday(day: number): number {
  const w = weekday(day);
  return w === 6 ? day - 1 : w === 0 ? day + 1 : day;
}

/**
 * British style: holidays falling on a weekend move to the next weekdays not
 * already holidays, in order (Christmas on a Saturday: Monday and Tuesday off).
 */
function forward(days: readonly number[]): number[] {
  const out: number[] = [];
  for (const d of days) {
    let x = d;
    while (weekday(x) === 0 || weekday(x) === 6 || out.includes(x)) x++;
    out.push(x);
  }
  return out;
}

/** Sunday holidays move to the next day that is not one (Tokyo, Hong Kong). */
function sundayToNext(days: readonly number[]): number[] {
  const set = new Set(days);
  const out = new Set(days);
  for (const d of [...days].sort((a, b) => a - b)) {
    if (weekday(d) !== 0) continue;
    let x = d + 1;
    while (set.has(x) || out.has(x)) x++;
    out.add(x);
  }
  return [...out];
}

const iso = (text: string) => Date.parse(`${text}T00:00:00Z`) / 86400000;

/** One-off closures inside the sample's window (state funerals, storms, coronations). */
const SPECIAL: Partial<Record<HolidayCalendar, readonly number[]>> = {
  US: ["2012-10-29", "2012-10-30", "2018-12-05", "2025-01-09"].map(iso),
  GB: ["2022-06-03", "2022-09-19", "2023-05-08"].map(iso),
  JP: ["2019-04-30", "2019-05-01", "2019-05-02", "2019-10-22"].map(iso),
};

function special(calendar: HolidayCalendar, year: number): number[] {
  return (SPECIAL[calendar] ?? []).filter((d) => new Date(d * 86400000).getUTCFullYear() === year);
}

function us(y: number): number[] {
  const out = [
    nthWeekday(y, 1, MON, 3),
    nthWeekday(y, 2, MON, 3),
    easter(y) - 2,
    nthWeekday(y, 5, MON, -1),
    nearestWeekday(makeDay(y, 7, 4)),
    nthWeekday(y, 9, MON, 1),
    nthWeekday(y, 11, THU, 4),
    nearestWeekday(makeDay(y, 12, 25)),
    ...special("US", y),
  ];
  // New Year's Day on a Saturday is not made up on the Friday before (it would fall in the old year).
  const newYear = makeDay(y, 1, 1);
  if (weekday(newYear) !== 6) out.push(nearestWeekday(newYear));
  if (y >= 2022) out.push(nearestWeekday(makeDay(y, 6, 19)));
  return out;
}

function ca(y: number): number[] {
  return [
    ...forward([makeDay(y, 1, 1)]),
    nthWeekday(y, 2, MON, 3),
    easter(y) - 2,
    makeDay(y, 5, 24) - ((weekday(makeDay(y, 5, 24)) - MON + 7) % 7), // Victoria Day: the Monday before May 25
    ...forward([makeDay(y, 7, 1)]),
    nthWeekday(y, 8, MON, 1),
    nthWeekday(y, 9, MON, 1),
    nthWeekday(y, 10, MON, 2),
    ...forward([makeDay(y, 12, 25), makeDay(y, 12, 26)]),
  ];
}

function de(y: number): number[] {
  const e = easter(y);
  return [makeDay(y, 1, 1), e - 2, e + 1, makeDay(y, 5, 1), ...[24, 25, 26, 31].map((d) => makeDay(y, 12, d))];
}

function gb(y: number): number[] {
  const e = easter(y);
  const earlyMay = y === 2020 ? makeDay(2020, 5, 8) : nthWeekday(y, 5, MON, 1);
  const spring = y === 2022 ? makeDay(2022, 6, 2) : y === 2012 ? makeDay(2012, 6, 4) : nthWeekday(y, 5, MON, -1);
  return [
    ...forward([makeDay(y, 1, 1)]),
    e - 2,
    e + 1,
    earlyMay,
    spring,
    nthWeekday(y, 8, MON, -1),
    ...forward([makeDay(y, 12, 25), makeDay(y, 12, 26)]),
    ...special("GB", y),
  ];
}

function euronext(y: number): number[] {
  const e = easter(y);
  return [makeDay(y, 1, 1), e - 2, e + 1, makeDay(y, 5, 1), makeDay(y, 12, 25), makeDay(y, 12, 26)];
}

function ch(y: number): number[] {
  const e = easter(y);
  return [
    makeDay(y, 1, 1),
    makeDay(y, 1, 2),
    e - 2,
    e + 1,
    makeDay(y, 5, 1),
    e + 39,
    e + 50,
    makeDay(y, 8, 1),
    ...[24, 25, 26, 31].map((d) => makeDay(y, 12, d)),
  ];
}

/** The day of an equinox by the usual approximation for 1980-2099 (vernal: 20.8431, autumnal: 23.2488). */
function equinox(y: number, month: number, base: number): number {
  return makeDay(y, month, Math.floor(base + 0.242194 * (y - 1980) - Math.floor((y - 1980) / 4)));
}

function jp(y: number): number[] {
  const national = [
    makeDay(y, 1, 1),
    nthWeekday(y, 1, MON, 2),
    makeDay(y, 2, 11),
    ...(y >= 2020 ? [makeDay(y, 2, 23)] : y <= 2018 ? [makeDay(y, 12, 23)] : []),
    equinox(y, 3, 20.8431),
    makeDay(y, 4, 29),
    makeDay(y, 5, 3),
    makeDay(y, 5, 4),
    makeDay(y, 5, 5),
    y === 2020 ? makeDay(2020, 7, 23) : y === 2021 ? makeDay(2021, 7, 22) : nthWeekday(y, 7, MON, 3),
    y === 2020 ? makeDay(2020, 8, 10) : y === 2021 ? makeDay(2021, 8, 8) : makeDay(y, 8, 11),
    nthWeekday(y, 9, MON, 3),
    equinox(y, 9, 23.2488),
    y === 2020 ? makeDay(2020, 7, 24) : y === 2021 ? makeDay(2021, 7, 23) : nthWeekday(y, 10, MON, 2),
    makeDay(y, 11, 3),
    makeDay(y, 11, 23),
    ...special("JP", y),
  ];
  const observed = sundayToNext(national);
  // A day between two national holidays is one too (the September "citizens' holiday").
  const set = new Set(observed);
  for (const d of observed) if (set.has(d + 2) && !set.has(d + 1) && weekday(d + 1) !== 0) observed.push(d + 1);
  // The exchange also closes on 2 and 3 January and on New Year's Eve.
  return [...observed, makeDay(y, 1, 2), makeDay(y, 1, 3), makeDay(y, 12, 31)];
}

function au(y: number): number[] {
  const e = easter(y);
  return [
    ...forward([makeDay(y, 1, 1)]),
    ...forward([makeDay(y, 1, 26)]),
    e - 2,
    e + 1,
    makeDay(y, 4, 25),
    nthWeekday(y, 6, MON, 2),
    ...forward([makeDay(y, 12, 25), makeDay(y, 12, 26)]),
  ];
}

const lunarCache = new Map<number, Map<string, number>>();

/** Gregorian day of the Chinese lunar date month/day in Gregorian `year` (Intl's Chinese calendar), or null. */
function lunar(year: number, month: number, dayOfMonth: number): number | null {
  let map = lunarCache.get(year);
  if (!map) {
    map = new Map();
    const f = new Intl.DateTimeFormat("en-u-ca-chinese", { timeZone: "UTC", month: "numeric", day: "numeric" });
    for (let d = makeDay(year, 1, 1); d < makeDay(year + 1, 1, 1); d++) {
      const parts = f.formatToParts(new Date(d * 86400000));
      const m = parts.find((p) => p.type === "month")?.value ?? "";
      const dd = parts.find((p) => p.type === "day")?.value ?? "";
      // A leap month ("4bis") repeats a month number; its days are no festival.
      const key = `${m}/${dd}`;
      if (!map.has(key)) map.set(key, d);
    }
    lunarCache.set(year, map);
  }
  return map.get(`${month}/${dayOfMonth}`) ?? null;
}

function hk(y: number): number[] {
  const e = easter(y);
  const lunarNewYear = lunar(y, 1, 1) as number;
  // Ching Ming falls on the solar term near 4-5 April.
  const yy = y % 100;
  const chingMing = makeDay(y, 4, Math.floor(yy * 0.2422 + 4.81) - Math.floor((yy - 1) / 4));
  const days = [
    makeDay(y, 1, 1),
    lunarNewYear,
    lunarNewYear + 1,
    lunarNewYear + 2,
    chingMing,
    e - 2,
    e - 1,
    e + 1,
    makeDay(y, 5, 1),
    lunar(y, 4, 8),
    lunar(y, 5, 5),
    makeDay(y, 7, 1),
    lunar(y, 8, 16),
    makeDay(y, 10, 1),
    lunar(y, 9, 9),
    makeDay(y, 12, 25),
    makeDay(y, 12, 26),
  ].filter((d): d is number => d !== null);
  return sundayToNext(days);
}

const RULES: Record<HolidayCalendar, (year: number) => number[]> = {
  US: us,
  CA: ca,
  DE: de,
  GB: gb,
  EURONEXT: euronext,
  CH: ch,
  JP: jp,
  AU: au,
  HK: hk,
};
