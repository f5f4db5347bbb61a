import type { Pet } from '../schemas/pet';

/**
 * The dozen animals a fresh sandbox holds: all three statuses, categories 1..4
 * (1 dogs, 2 cats, 3 birds, 4 small animals), ids 1..12.
 */
export function sampleAnimals(): Pet[] {
  return [
    { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
    { id: 2, name: 'Bella', categoryId: 1, status: 'pending' },
    { id: 3, name: 'Max', categoryId: 1, status: 'sold' },
    { id: 4, name: 'Luna', categoryId: 2, status: 'available' },
    { id: 5, name: 'Oliver', categoryId: 2, status: 'available' },
    { id: 6, name: 'Milo', categoryId: 2, status: 'sold' },
    { id: 7, name: 'Kiwi', categoryId: 3, status: 'available' },
    { id: 8, name: 'Sunny', categoryId: 3, status: 'pending' },
    { id: 9, name: 'Hazel', categoryId: 4, status: 'available' },
    { id: 10, name: 'Pepper', categoryId: 4, status: 'sold' },
    { id: 11, name: 'Daisy', categoryId: 1, status: 'available' },
    { id: 12, name: 'Nibbles', categoryId: 4, status: 'pending' },
  ];
}
