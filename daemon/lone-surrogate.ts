// Half a UTF-16 surrogate pair is not Unicode text: JSON.parse and YAML both let `\ud800` escapes
// through, and strict JSON readers (jq) refuse the answer that carries one back.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);
