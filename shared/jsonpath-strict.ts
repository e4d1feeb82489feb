// What RFC 9535 refuses and json-p3 (even strict) lets through: a `-` in a shorthand name
// (`$.a-b`, which must be written `$['a-b']`), a comparison whose side is not a value, a
// singular query or a function (`@.a == 1 == 2`, `!@.a == 1`, `(@.a == 1) == true`), and a
// negative number with a leading zero (`-01`).
// Checked on the compiled query, whose tree keeps those apart.
import { jsonpath, type JSONPathQuery } from 'json-p3';

const { FilterSelector, NameSelector } = jsonpath.selectors;
const { FilterExpressionLiteral, FilterQuery, FunctionExtension, InfixExpression, LogicalExpression, PrefixExpression } = jsonpath.expressions;
type Expression = InstanceType<typeof jsonpath.expressions.FilterExpression>;

/** RFC 9535 member-name-shorthand: name-first then name-chars (no `-`). */
const SHORTHAND_NAME = /^[A-Za-z_\u0080-\u{10FFFF}][A-Za-z0-9_\u0080-\u{10FFFF}]*$/u;
const COMPARISON_OPERATORS = new Set(['==', '!=', '<', '<=', '>', '>=']);
/** `-01`, `-00`, `-01.5`: a minus, then a zero followed by another digit */
const NEGATIVE_LEADING_ZERO = /^-0\d/;

/** Why the query is not RFC 9535 JSONPath, or null when it is. */
export function nonStandardPart(query: JSONPathQuery): string | null {
  for (const segment of query.segments) {
    for (const selector of segment.selectors) {
      if (selector instanceof NameSelector && selector.token.kind === 'TOKEN_NAME' && !SHORTHAND_NAME.test(selector.name)) {
        return `.${selector.name} is not a valid shorthand name (letters, digits and _ only); write ['${selector.name}']`;
      }
      if (selector instanceof FilterSelector) {
        const problem = inExpression(selector.expression);
        if (problem) return problem;
      }
    }
  }
  return null;
}

function inExpression(e: Expression): string | null {
  if (e instanceof InfixExpression) {
    if (COMPARISON_OPERATORS.has(e.operator) && (!isComparable(e.left) || !isComparable(e.right))) {
      return `each side of ${e.operator} must be a value, a query or a function, not a comparison or a negation (combine tests with && and ||, negate with !(...))`;
    }
    return inExpression(e.left) ?? inExpression(e.right);
  }
  if (e instanceof FilterExpressionLiteral && e.token.kind === 'NUMBER' && NEGATIVE_LEADING_ZERO.test(e.token.value)) {
    // json-p3 refuses 01 but takes -01; RFC 9535's int and frac have no leading zeros either way.
    return `${e.token.value} is not a valid number literal (no leading zeros)`;
  }
  if (e instanceof LogicalExpression) return inExpression(e.expression);
  if (e instanceof PrefixExpression) return inExpression(e.right);
  if (e instanceof FilterQuery) return nonStandardPart(e.path);
  if (e instanceof FunctionExtension) {
    for (const arg of e.args) {
      const problem = inExpression(arg);
      if (problem) return problem;
    }
  }
  return null;
}

function isComparable(e: Expression): boolean {
  return e instanceof FilterExpressionLiteral || e instanceof FilterQuery || e instanceof FunctionExtension;
}
