// Pairs of automation names, and whether they name the same automation (shared/automation-names.ts).
// The daemon's tests and the CLI's tests both check every pair, so the two sides cannot drift apart.
export interface NamePair {
  existing: string;
  given: string;
  same: boolean;
  why: string;
}

export const NAME_PAIRS: readonly NamePair[] = [
  { existing: 'Straße', given: 'STRASSE', same: true, why: 'ß upper-cases to SS' },
  { existing: 'STRAẞE', given: 'strasse', same: true, why: 'capital ẞ lowers to ß, then SS' },
  { existing: 'Caf\u00e9', given: 'CAFE\u0301', same: true, why: 'composed and decomposed é are one NFC form' },
  { existing: 'Nightly', given: '  NIGHTLY ', same: true, why: 'surrounding whitespace is not part of a name' },
  // Turkish I without locale tailoring: İ (U+0130) folds to i + U+0307 (as CaseFolding.txt's full
  // folding does), so it matches neither i nor ı; ı (U+0131) goes through I to i (CaseFolding.txt
  // leaves it unfolded: here the rule folds more).
  { existing: 'İstanbul', given: 'istanbul', same: false, why: 'İ keeps its dot: i + U+0307' },
  { existing: 'İstanbul', given: 'ıstanbul', same: false, why: 'İ keeps its dot, ı loses none' },
  { existing: 'ıstanbul', given: 'istanbul', same: true, why: 'ı upper-cases to I, which lowers to i' },
  { existing: 'İstanbul', given: 'İSTANBUL', same: true, why: 'the same capital İ' },
  { existing: 'İstanbul', given: 'i\u0307stanbul', same: true, why: 'İ lowers to i + U+0307' },
  { existing: 'ISTANBUL', given: 'ıstanbul', same: true, why: 'ı upper-cases to I' },
];
