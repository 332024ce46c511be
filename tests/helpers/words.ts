/**
 * A word no document holds by chance, for tests that search for exactly one document: `zq`, eight
 * random letters, then `suffix`. Each hex digit of a UUID becomes a letter of its own (digits to
 * g–p), so two words are equal once in 16^8: folding every digit to one letter made them equal
 * about once in 40 (eight digits in a row), and a search for one found the other.
 */
export const uniqueWord = (suffix = "word") =>
  `zq${crypto
    .randomUUID()
    .slice(0, 8)
    .replace(/[0-9]/g, (d) => String.fromCharCode(103 + Number(d)))}${suffix}`;
