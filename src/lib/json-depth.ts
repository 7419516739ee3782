/**
 * How deep a JSON text nests, read without parsing it (PRODUCT §4): a body nested deeper than
 * MAX_JSON_DEPTH is refused, and the journal parses a kept body back only when it is not.
 */

/** No request needs more; a deeper value would overflow the stack of whatever serialises it. */
export const MAX_JSON_DEPTH = 64

/** Whether a JSON text opens more than `limit` objects or arrays at once, read without parsing. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // each level opens a bracket: a text with no more than `limit` of them (a request's body, as a
  // rule) cannot nest deeper, and counting them is a few native searches, not a loop per character
  if (openingBrackets(text, limit + 1) <= limit) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === '{' || char === '[') {
      if (++depth > limit) return true
    } else if (char === '}' || char === ']') depth--
  }
  return false
}

/** How many `{` and `[` the text holds (brackets inside strings too), counting up to `enough`. */
function openingBrackets(text: string, enough: number): number {
  let count = 0
  for (let at = text.indexOf('{'); at !== -1 && count < enough; at = text.indexOf('{', at + 1))
    count++
  for (let at = text.indexOf('['); at !== -1 && count < enough; at = text.indexOf('[', at + 1))
    count++
  return count
}
