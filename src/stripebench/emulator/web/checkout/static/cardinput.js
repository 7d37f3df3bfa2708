// Card inputs that behave as Stripe's: the number groups as typed ("4242 4242 4242 4242",
// Amex 4-6-5), the expiry becomes "MM / YY" ("1234" -> "12 / 34"), the CVC keeps digits,
// and a complete part moves the focus on to the next one. Text typed or pasted past a
// complete part flows into the next part, so "4242424242424242 12/34 123 94107" typed
// into the number fills number, expiry, CVC and postal code.
// Shared by the Elements iframes (web/stripejs/frame.js) and the Checkout page.
(function () {
  'use strict';
  var BRANDS = [
    ['amex', /^3[47]/, 15, 4], ['diners', /^3(0[0-5]|[689])/, 14, 3],
    ['discover', /^(6011|65|64[4-9])/, 16, 3], ['jcb', /^35/, 16, 3],
    ['unionpay', /^62/, 16, 3], ['mastercard', /^(5[1-5]|2[2-7])/, 16, 3], ['visa', /^4/, 16, 3]
  ];

  function digits(value) { return (value || '').replace(/\D/g, ''); }

  function brandOf(number) {
    for (var i = 0; i < BRANDS.length; i++) {
      if (BRANDS[i][1].test(number)) return BRANDS[i];
    }
    return ['unknown', null, 16, 3];
  }

  function luhn(number) {
    var sum = 0;
    for (var i = 0; i < number.length; i++) {
      var d = +number[number.length - 1 - i];
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }

  function formatNumber(value) {
    var d = digits(value).slice(0, 19);
    if (brandOf(d)[0] === 'amex') {
      return d.replace(/^(\d{0,4})(\d{0,6})(\d{0,5}).*/, function (m, a, b, c) {
        return [a, b, c].filter(Boolean).join(' ');
      });
    }
    return d.replace(/(\d{4})(?=\d)/g, '$1 ');
  }

  function formatExpiry(value, deleting) {
    var d = digits(value).slice(0, 4);
    if (d.length === 1 && d > '1') d = '0' + d;
    if (d.length >= 3) return d.slice(0, 2) + ' / ' + d.slice(2);
    if (d.length === 2 && !deleting) return d + ' / ';
    return d;
  }

  // Where the `count`-th digit of `raw` ends (raw.length if it has fewer digits).
  function cutAfterDigits(raw, count) {
    var seen = 0;
    for (var i = 0; i < raw.length; i++) {
      if (/\d/.test(raw[i]) && ++seen === count) return i + 1;
    }
    return raw.length;
  }

  function numberComplete(number) {
    var b = brandOf(number);
    return number.length === b[2] && luhn(number);
  }

  function expiryComplete(d) {
    var month = +d.slice(0, 2);
    return d.length === 4 && month >= 1 && month <= 12;
  }

  // parts: {number, expiry, cvc, after (input after the CVC), spillAfter (give it the rest
  // of the text), onInput(name)}; any part may be missing (split Card Elements).
  function attach(parts) {
    var order = ['number', 'expiry', 'cvc', 'after'].filter(function (k) { return parts[k]; });

    function nextOf(name) {
      var at = order.indexOf(name);
      return at >= 0 && at + 1 < order.length ? order[at + 1] : null;
    }

    // Move on to the next part, handing it whatever was typed past this one.
    function advance(name, rest) {
      var next = nextOf(name);
      if (!next) return;
      var input = parts[next];
      var spill = next !== 'after' || parts.spillAfter;
      if (spill && rest && rest.trim()) {
        input.value = rest;
        input.focus();
        input.dispatchEvent(new Event('input', {bubbles: true}));
        return;
      }
      input.focus();
    }

    function wire(name, handle) {
      var input = parts[name];
      if (!input) return;
      input.addEventListener('input', function (ev) {
        var deleting = !!(ev.inputType && ev.inputType.indexOf('delete') === 0);
        var focused = document.activeElement === input;
        var rest = handle(input, deleting);
        if (parts.onInput) parts.onInput(name);
        if (rest !== null && !deleting && focused) advance(name, rest);
      });
    }

    // Each handler formats its input and returns the text past a complete part (or null).
    wire('number', function (input) {
      var raw = input.value;
      var d = digits(raw);
      var need = brandOf(d)[2];
      if (d.length >= need && numberComplete(d.slice(0, need))) {
        var cut = cutAfterDigits(raw, need);
        input.value = formatNumber(raw.slice(0, cut));
        return raw.slice(cut);
      }
      input.value = formatNumber(raw);
      return null;
    });
    wire('expiry', function (input, deleting) {
      var raw = input.value;
      var cut = cutAfterDigits(raw, 4);
      input.value = formatExpiry(raw.slice(0, cut), deleting);
      return expiryComplete(digits(input.value)) ? raw.slice(cut) : null;
    });
    wire('cvc', function (input) {
      var raw = input.value;
      var number = parts.number ? digits(parts.number.value) : '';
      var need = parts.number ? brandOf(number)[3] : 4;
      var d = digits(raw);
      input.value = d.slice(0, 4);
      if (d.length >= need && parts.number) {
        var cut = cutAfterDigits(raw, need);
        input.value = d.slice(0, need);
        return raw.slice(cut);
      }
      return null;
    });
    if (parts.after && parts.spillAfter) {
      parts.after.addEventListener('input', function () {
        var trimmed = parts.after.value.replace(/^\s+/, '');
        if (trimmed !== parts.after.value) parts.after.value = trimmed;
      });
    }
  }

  window.StripebenchCard = {BRANDS: BRANDS, digits: digits, brandOf: brandOf, luhn: luhn,
    formatNumber: formatNumber, formatExpiry: formatExpiry, attach: attach};
})();
