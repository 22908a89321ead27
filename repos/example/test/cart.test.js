import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { ShoppingCart, toCents } from '../src/cart.js';

describe('toCents', () => {
  it('rounds an amount to two decimals', () => {
    assert.equal(toCents(10.456), 10.46);
    assert.equal(toCents(0.1 + 0.2), 0.3);
  });
});

describe('ShoppingCart.add', () => {
  it('starts empty', () => {
    const cart = new ShoppingCart();
    assert.equal(cart.count(), 0);
    assert.equal(cart.subtotal(), 0);
  });

  it('adds a single unit by default', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 2);
    assert.equal(cart.count(), 1);
  });

  it('accumulates quantity when the same product is added again', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 2, 3).add('apple', 2, 2);
    assert.equal(cart.count(), 5);
    assert.equal(cart.items.size, 1);
  });

  it('accepts a free product', () => {
    const cart = new ShoppingCart();
    cart.add('sticker', 0);
    assert.equal(cart.count(), 1);
  });

  it('throws for a negative price', () => {
    const cart = new ShoppingCart();
    assert.throws(() => cart.add('apple', -1), RangeError);
  });

  it('throws for a zero quantity', () => {
    const cart = new ShoppingCart();
    assert.throws(() => cart.add('apple', 1, 0), RangeError);
  });

  it('throws for a fractional quantity', () => {
    const cart = new ShoppingCart();
    assert.throws(() => cart.add('apple', 1, 1.5), RangeError);
  });
});

describe('ShoppingCart.remove', () => {
  it('returns false for a product not in the cart', () => {
    const cart = new ShoppingCart();
    assert.equal(cart.remove('ghost'), false);
  });

  it('removes all units when no quantity is given', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 2, 3);
    assert.equal(cart.remove('apple'), true);
    assert.equal(cart.count(), 0);
  });

  it('removes only the given number of units', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 2, 5);
    cart.remove('apple', 2);
    assert.equal(cart.count(), 3);
  });

  it('deletes the product when removing exactly its quantity', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 2, 3);
    cart.remove('apple', 3);
    assert.equal(cart.items.has('apple'), false);
  });

  it('deletes the product when removing more than its quantity', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 2, 3);
    cart.remove('apple', 10);
    assert.equal(cart.count(), 0);
  });
});

describe('ShoppingCart.subtotal', () => {
  it('sums price times quantity over all products', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 1.25, 4).add('pear', 3, 2);
    assert.equal(cart.subtotal(), 11);
  });

  it('rounds to cents', () => {
    const cart = new ShoppingCart();
    cart.add('a', 0.1).add('b', 0.2);
    assert.equal(cart.subtotal(), 0.3);
  });
});

describe('ShoppingCart.applyCoupon', () => {
  it('rejects an unknown code', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 30);
    assert.equal(cart.applyCoupon('BOGUS'), false);
    assert.equal(cart.coupon, null);
  });

  it('accepts a code regardless of case', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 30);
    assert.equal(cart.applyCoupon('save10'), true);
  });

  it('rejects a minimum-subtotal coupon below the minimum', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 19.99);
    assert.equal(cart.applyCoupon('FIVEOFF'), false);
  });

  it('accepts a minimum-subtotal coupon exactly at the minimum', () => {
    const cart = new ShoppingCart();
    cart.add('apple', 20);
    assert.equal(cart.applyCoupon('FIVEOFF'), true);
  });
});

describe('ShoppingCart.discount', () => {
  it('is zero below the bulk threshold without a coupon', () => {
    const cart = new ShoppingCart();
    cart.add('item', 99.99);
    assert.equal(cart.discount(), 0);
  });

  it('applies the bulk discount exactly at the threshold', () => {
    const cart = new ShoppingCart();
    cart.add('item', 100);
    assert.equal(cart.discount(), 10);
  });

  it('applies a percentage coupon to the subtotal', () => {
    const cart = new ShoppingCart();
    cart.add('item', 40);
    cart.applyCoupon('SAVE10');
    assert.equal(cart.discount(), 4);
  });

  it('applies a fixed coupon', () => {
    const cart = new ShoppingCart();
    cart.add('item', 30);
    cart.applyCoupon('FIVEOFF');
    assert.equal(cart.discount(), 5);
  });

  it('combines the bulk discount with a coupon', () => {
    const cart = new ShoppingCart();
    cart.add('item', 200);
    cart.applyCoupon('SAVE10');
    assert.equal(cart.discount(), 40);
  });

  it('never exceeds the subtotal', () => {
    const cart = new ShoppingCart();
    cart.add('item', 20);
    cart.applyCoupon('FIVEOFF');
    cart.remove('item');
    cart.add('cheap', 3);
    assert.equal(cart.discount(), 3);
  });
});

describe('ShoppingCart.shipping', () => {
  it('is free for an empty cart', () => {
    const cart = new ShoppingCart();
    assert.equal(cart.shipping(), 0);
  });

  it('charges the fee below the free-shipping minimum', () => {
    const cart = new ShoppingCart();
    cart.add('item', 49.99);
    assert.equal(cart.shipping(), 5);
  });

  it('is free exactly at the free-shipping minimum', () => {
    const cart = new ShoppingCart();
    cart.add('item', 50);
    assert.equal(cart.shipping(), 0);
  });

  it('uses the discounted amount to decide', () => {
    const cart = new ShoppingCart();
    cart.add('item', 52);
    cart.applyCoupon('FIVEOFF');
    assert.equal(cart.shipping(), 5);
  });
});

describe('ShoppingCart.total', () => {
  it('adds shipping to a small order', () => {
    const cart = new ShoppingCart();
    cart.add('item', 10, 2);
    assert.equal(cart.total(), 25);
  });

  it('subtracts the discount from a large order', () => {
    const cart = new ShoppingCart();
    cart.add('item', 60, 2);
    assert.equal(cart.total(), 108);
  });

  it('combines coupon, bulk discount and free shipping', () => {
    const cart = new ShoppingCart();
    cart.add('a', 75.5).add('b', 24.5);
    cart.applyCoupon('FIVEOFF');
    assert.equal(cart.total(), 85);
  });
});

describe('ShoppingCart.clear', () => {
  it('removes all products and the coupon', () => {
    const cart = new ShoppingCart();
    cart.add('item', 30);
    cart.applyCoupon('SAVE10');
    cart.clear();
    assert.equal(cart.count(), 0);
    assert.equal(cart.coupon, null);
  });
});
