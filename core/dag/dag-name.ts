/**
 * The characters a DAG name may have, apart from the rest of validate.ts so that the dialect
 * decision (which the web UI runs too, as a generated copy) can use it without the loader.
 */
export const DAG_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
