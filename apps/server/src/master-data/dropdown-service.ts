import type { DropdownOptions, DropdownType } from '@sales-order/contract';
import type { PrismaClient } from '../generated/prisma/client.js';

// Dropdowns arrive with issue 3; until then the route answers 500.
export const createDropdownService = (_prisma: PrismaClient) => ({
  async options(_type: DropdownType, _selectedId: number | null): Promise<DropdownOptions> {
    throw new Error('dropdown-options is not implemented yet');
  },
});
