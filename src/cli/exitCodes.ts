/** The CLI's exit codes (README: "Exit codes"). */
export const EXIT = { ok: 0, leftToMigrate: 1, failed: 2, incomplete: 3, interrupted: 130, terminated: 143 } as const;
