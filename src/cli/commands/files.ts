/** `assay export` and `assay apply` — STUB, replaced by the tests-as-files work. */
import type { Registrar } from '../main';

export const registerGitCommands: Registrar = () => {};
