// Text for XML 1.0 elements and attributes: the markup characters escaped, and the characters XML 1.0 cannot carry
// at all (C0 controls other than tab, newline and carriage return; lone surrogates; U+FFFE, U+FFFF) dropped.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(value: string): string {
  return value.replace(NOT_XML, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** For a double-quoted attribute; tab, newline and carriage return as character references (else they normalise). */
export function xmlAttribute(value: string): string {
  return xmlText(value).replace(/"/g, "&quot;").replace(/\t/g, "&#9;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;");
}
