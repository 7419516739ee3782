/** A card's columns but its reference (and identifier), as the store tests insert cards of ten_1. */
export const CARD_COLUMNS = {
  tenantId: 'ten_1',
  cardUserReference: 'user-1',
  brand: 'visa',
  type: 'virtual',
  status: 'issuing',
  createdAt: 5,
  updatedAt: 6,
} as const
