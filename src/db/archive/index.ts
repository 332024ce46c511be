/**
 * Archives of a whole store (format.ts): `exportArchive` writes one from a consistent snapshot,
 * `importArchive` loads one into an empty store, all or nothing. Store-level like migrations:
 * they move every table Parley owns without knowing any feature's rows.
 */
export { exportArchive } from "./export.ts";
export { ArchiveError, type ArchiveHeader, type ArchiveTrailer } from "./format.ts";
export { type ImportOptions, type ImportReport, importArchive } from "./import.ts";
export { openArchive } from "./read.ts";
