/**
 * A small shopping cart with discounts and coupons.
 */

/** Orders at or above this subtotal get a bulk discount. */
export const BULK_THRESHOLD = 100;

/** Bulk discount rate applied at or above BULK_THRESHOLD. */
export const BULK_RATE = 0.1;

/** Orders whose total is below this amount pay shipping. */
export const FREE_SHIPPING_MIN = 50;

/** Flat shipping fee for small orders. */
export const SHIPPING_FEE = 5;

const COUPONS = {
  SAVE10: { type: 'percent', value: 10 },
  FIVEOFF: { type: 'fixed', value: 5, minSubtotal: 20 },
};

/**
 * Rounds a money amount to cents.
 * @param {number} amount
 * @returns {number}
 */
export const toCents = (amount) => Math.round(amount * 100) / 100;

export class ShoppingCart {
  constructor() {
    this.items = new Map();
    this.coupon = null;
  }

  /**
   * Adds quantity units of a product; repeated adds accumulate.
   * @param {string} sku
   * @param {number} price
   * @param {number} [quantity=1]
   */
  add(sku, price, quantity = 1) {
    if (price < 0) {
      throw new RangeError('price must not be negative');
    }
    if (!Number.isInteger(quantity) || quantity <= 0) {
      throw new RangeError('quantity must be a positive integer');
    }
    const existing = this.items.get(sku);
    if (existing) {
      existing.quantity += quantity;
    } else {
      this.items.set(sku, { price, quantity });
    }
    return this;
  }

  /**
   * Removes quantity units of a product (all units if omitted).
   * Returns false if the product is not in the cart.
   * @param {string} sku
   * @param {number} [quantity]
   * @returns {boolean}
   */
  remove(sku, quantity) {
    const existing = this.items.get(sku);
    if (!existing) {
      return false;
    }
    if (quantity === undefined || quantity >= existing.quantity) {
      this.items.delete(sku);
    } else {
      existing.quantity -= quantity;
    }
    return true;
  }

  /**
   * Total number of units in the cart.
   * @returns {number}
   */
  count() {
    let units = 0;
    for (const { quantity } of this.items.values()) {
      units += quantity;
    }
    return units;
  }

  /**
   * Sum of price * quantity before discounts.
   * @returns {number}
   */
  subtotal() {
    let total = 0;
    for (const { price, quantity } of this.items.values()) {
      total += price * quantity;
    }
    return toCents(total);
  }

  /**
   * Applies a coupon code. Returns true if the code is valid for this cart.
   * @param {string} code
   * @returns {boolean}
   */
  applyCoupon(code) {
    const coupon = COUPONS[code.toUpperCase()];
    if (!coupon) {
      return false;
    }
    if (coupon.minSubtotal !== undefined && this.subtotal() < coupon.minSubtotal) {
      return false;
    }
    this.coupon = coupon;
    return true;
  }

  /**
   * Discount amount: bulk discount plus any coupon, never more than the subtotal.
   * @returns {number}
   */
  discount() {
    const subtotal = this.subtotal();
    let amount = 0;
    if (subtotal >= BULK_THRESHOLD) {
      amount += subtotal * BULK_RATE;
    }
    if (this.coupon) {
      amount += this.coupon.type === 'percent' ? (subtotal * this.coupon.value) / 100 : this.coupon.value;
    }
    return toCents(Math.min(amount, subtotal));
  }

  /**
   * Shipping fee: free for an empty cart or when the discounted total reaches the minimum.
   * @returns {number}
   */
  shipping() {
    const net = this.subtotal() - this.discount();
    if (this.items.size === 0 || net >= FREE_SHIPPING_MIN) {
      return 0;
    }
    return SHIPPING_FEE;
  }

  /**
   * Amount due: subtotal minus discount plus shipping.
   * @returns {number}
   */
  total() {
    return toCents(this.subtotal() - this.discount() + this.shipping());
  }

  /** Empties the cart and clears any coupon. */
  clear() {
    this.items.clear();
    this.coupon = null;
  }
}
