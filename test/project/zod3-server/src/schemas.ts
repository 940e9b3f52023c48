// Input shapes of the reading-list tools, written against zod 3.
import { z } from 'zod';

export enum Shelf {
  Unread = 'unread',
  Reading = 'reading',
  Done = 'done',
}

export const BookId = z.string().uuid({ message: 'a book id is a UUID' });
export const ShelfName = z.nativeEnum(Shelf);
export const Reviewer = z.string().email().optional();

export const MoveInput = {
  id: BookId,
  shelf: ShelfName,
  reviewer: Reviewer,
};
