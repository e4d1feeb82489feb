// When two automation names are the same name (CONTRACT §4: unique per team, case-insensitively).
// The daemon stores this key under a unique constraint and the CLI matches names with it (apply,
// get/update/delete by name), so both sides must use this one function: a CLI that folds less
// than the daemon plans a create the daemon refuses with 409.

/**
 * The name's identity: its NFC form, without surrounding whitespace, case folded through lower,
 * upper and lower case again (no locale). Upper-casing expands letters that have no one-letter
 * capital ("ß" to "SS", "ﬁ" to "FI"); lowering first does it for a capital that has none either
 * ("ẞ" to "ß" to "SS"); so "Straße" is "STRAẞE" is "STRASSE", and "σας" is "ΣΑΣ".
 *
 * Where this differs from CaseFolding.txt's full folding: dotless "ı" (U+0131, unfolded there)
 * goes through "I" to "i", so "ıstanbul" is "istanbul"; "İ" (U+0130) lowers to "i" + U+0307 as
 * under full folding, so "İstanbul" is neither. Changing the rule needs a migration of the keys
 * the daemon stored.
 */
export const automationNameKey = (name: string): string => name.normalize('NFC').trim().toLowerCase().toUpperCase().toLowerCase();
