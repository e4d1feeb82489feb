// JSON numbers a double cannot hold. JSON.parse reads 1e400 as Infinity, which JSON.stringify
// writes as null: sent on, stored or shown to filters, the number would quietly be null. The
// daemon refuses such bodies; the CLI refuses such input before sending it.

/**
 * Only a number with a long exponent or a run of 309+ digits can overflow, so most texts are not
 * walked. A number starts the text or follows `:`, `,` or `[`: a hex digest in a string
 * ("sha": "3f7e387...") looks like an exponent, but follows none of them.
 */
const MAYBE_OUT_OF_RANGE = /(?:^|[:,[])\s*-?\d+(?:\.\d+)?[eE]\+?0*\d{3}|\d{309}/;

export const OUT_OF_RANGE_MESSAGE = 'has a number beyond what a JSON number can hold here (an IEEE 754 double, up to about 1.8e308)';

/** Whether `value`, parsed from `text`, holds a number JSON.parse could not (Infinity). */
export function hasNumberOutOfRange(text: string, value: unknown): boolean {
  return MAYBE_OUT_OF_RANGE.test(text) && holdsNonFinite(value);
}

/** Whether `value` holds Infinity or NaN anywhere (YAML's `.inf`, or JSON's 1e400 once parsed). */
export const holdsNonFinite = (value: unknown): boolean => anywhere(value, (v) => typeof v === 'number' && !Number.isFinite(v));

/** Whether `test` holds for `value` or anything in it, object keys included. */
export function anywhere(value: unknown, test: (v: unknown) => boolean): boolean {
  if (test(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, v]) => test(key) || anywhere(v, test));
}
