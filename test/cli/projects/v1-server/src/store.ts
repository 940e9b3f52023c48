export interface Note {
  id: string;
  title: string;
  body: string;
}

const notes = new Map<string, Note>([
  ['1', { id: '1', title: 'Groceries', body: 'milk, eggs' }],
  ['2', { id: '2', title: 'Ideas', body: 'write the migration guide' }],
]);

export function listNotes(): Note[] {
  return [...notes.values()];
}

export function findNote(id: string): Note | undefined {
  return notes.get(id);
}

export function deleteNote(id: string): void {
  notes.delete(id);
}

/** The notes one by one, as a database cursor would hand them out. */
export async function* streamNotes(): AsyncGenerator<Note> {
  for (const note of notes.values()) yield note;
}
