// The operators of an event filter (CONTRACT §6), apart from the filter engine so that the API's
// schemas (and the CLI's hot path, which loads them) can name them without loading JSONPath.
export const FILTER_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'in',
  'exists',
  'not_exists',
  'matches',
  'gt',
  'gte',
  'lt',
  'lte',
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];
