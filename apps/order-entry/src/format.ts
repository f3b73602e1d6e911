/**
 * Numbers and dates as the business writes them, one way everywhere on the page (form, totals,
 * list, history). The locale is the page's `<meta name="sales-order-locale">` (en-US unless the
 * host sets another), so a host changes it in one place.
 */
const locale = (): string => {
  const wanted = document.querySelector<HTMLMetaElement>('meta[name="sales-order-locale"]')?.content ?? 'en-US';
  try {
    return Intl.NumberFormat.supportedLocalesOf([wanted]).length > 0 ? wanted : 'en-US';
  } catch {
    return 'en-US';
  }
};

const BUSINESS_LOCALE = locale();

const amounts = new Intl.NumberFormat(BUSINESS_LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
// Quantities keep the service's three decimals and rates its four, without padding.
const quantities = new Intl.NumberFormat(BUSINESS_LOCALE, { maximumFractionDigits: 4 });
const dates = new Intl.DateTimeFormat(BUSINESS_LOCALE, { dateStyle: 'medium', timeZone: 'UTC' });
const instants = new Intl.DateTimeFormat(BUSINESS_LOCALE, { dateStyle: 'medium', timeStyle: 'short' });

/** Money: always two decimals, grouped ("25,700.00"). */
export const formatAmount = (value: number): string => amounts.format(value);

/** A quantity or rate: its own decimals, grouped ("1,250.5"). */
export const formatQuantity = (value: number): string => quantities.format(value);

/** A calendar date "YYYY-MM-DD" as the business reads it ("Nov 15, 2026"). */
export const formatDate = (date: string): string =>
  /^\d{4}-\d{2}-\d{2}$/.test(date) ? dates.format(new Date(`${date}T00:00:00Z`)) : date;

/** An instant (ISO 8601) in the clerk's own time zone. */
export const formatInstant = (at: string): string => instants.format(new Date(at));

const plurals = new Intl.PluralRules(BUSINESS_LOCALE);

/**
 * A count with its noun in the right form for the business locale's plural rules ("1 licence
 * warning", "3 licence warnings"): `forms` holds the noun for each plural category the words
 * need (English: `one` and `other`), `other` standing in for any missing.
 */
export const countOf = (count: number, forms: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }) =>
  `${quantities.format(count)} ${forms[plurals.select(count)] ?? forms.other}`;
