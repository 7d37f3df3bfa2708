// The document inside each Elements iframe: labelled inputs, formatting, validation.
// It talks only to the parent frame's Stripe instance, by postMessage:
//   frame -> parent: {__sb, id, type: 'ready'|'change'|'focus'|'blur'|'escape'|'resize'|
//                     'collected', payload}
//   parent -> frame: {__sb, type: 'collect'|'update'|'focus'|'blur'|'clear', nonce, options}
(function () {
  'use strict';
  var params = new URLSearchParams(location.search);
  var KIND = params.get('type') || 'card';
  var ID = params.get('id') || '';
  var PARENT = params.get('origin') || '*';
  var options = {};
  try { options = JSON.parse(params.get('options') || '{}'); } catch (e) { options = {}; }

  var Card = window.StripebenchCard;  // cardinput.js, inlined before this script
  var brandOf = Card.brandOf;
  var luhn = Card.luhn;
  var digits = Card.digits;

  function send(type, payload) {
    window.parent.postMessage({__sb: true, id: ID, type: type, payload: payload || {}}, PARENT);
  }

  var root = document.getElementById('root');
  var fields = {};

  function field(name, label, attrs, visibleLabel) {
    var wrap = document.createElement('div');
    wrap.className = 'field field-' + name;
    var input = document.createElement(attrs.tag || 'input');
    input.id = 'sb-' + name;
    input.name = attrs.name || attrs.autocomplete || name;
    if (attrs.tag !== 'select') {
      input.type = 'text';
      input.setAttribute('inputmode', attrs.inputmode || 'text');
    }
    if (attrs.autocomplete) input.setAttribute('autocomplete', attrs.autocomplete);
    if (attrs.placeholder) input.placeholder = attrs.placeholder;
    if (attrs.maxLength) input.maxLength = attrs.maxLength;
    var lab = document.createElement('label');
    lab.htmlFor = input.id;
    lab.textContent = label;
    if (!visibleLabel) lab.className = 'visually-hidden';
    input.setAttribute('aria-label', label);
    wrap.appendChild(lab);
    wrap.appendChild(input);
    var err = document.createElement('div');
    err.className = 'field-error';
    err.setAttribute('role', 'alert');
    wrap.appendChild(err);
    fields[name] = {input: input, error: err, wrap: wrap};
    return wrap;
  }

  var withCard = KIND === 'card' || KIND === 'payment';
  var labelled = KIND === 'payment' || KIND === 'address' || KIND === 'linkAuthentication';
  var row = document.createElement('div');
  row.className = 'layout layout-' + KIND;
  root.appendChild(row);

  if (KIND === 'linkAuthentication') {  // Link is not emulated: an email field only
    row.appendChild(field('email', 'Email', {autocomplete: 'email', inputmode: 'email',
      placeholder: 'you@example.com'}, true));
    if (options.defaultValues && options.defaultValues.email) {
      fields.email.input.value = options.defaultValues.email;
    }
  }
  // Input names as Stripe's: the Card Elements' (cardnumber, exp-date, cvc, postal) and
  // the Payment Element's (number, expiry, cvc, country, postalCode).
  var NAMES = KIND === 'payment'
    ? {number: 'number', expiry: 'expiry', cvc: 'cvc', postal: 'postalCode'}
    : {number: 'cardnumber', expiry: 'exp-date', cvc: 'cvc', postal: 'postal'};
  if (KIND === 'card' || KIND === 'cardNumber' || KIND === 'payment') {
    row.appendChild(field('number', 'Card number', {name: NAMES.number,
      placeholder: KIND === 'payment' ? '1234 1234 1234 1234' : 'Card number',
      inputmode: 'numeric', autocomplete: 'cc-number'}, labelled));
  }
  if (KIND === 'card' || KIND === 'cardExpiry' || KIND === 'payment') {
    row.appendChild(field('expiry', 'Expiration date', {name: NAMES.expiry,
      placeholder: 'MM / YY', inputmode: 'numeric', autocomplete: 'cc-exp'}, labelled));
  }
  if (KIND === 'card' || KIND === 'cardCvc' || KIND === 'payment') {
    row.appendChild(field('cvc', 'Security code', {name: NAMES.cvc, placeholder: 'CVC',
      inputmode: 'numeric', autocomplete: 'cc-csc'}, labelled));
  }
  // Payment Element `fields.billingDetails`: 'never' (or address / its parts 'never') hides
  // the country and ZIP inputs; the page then passes them at confirm time.
  var billingFields = KIND === 'payment' ? ((options.fields || {}).billingDetails || 'auto') : 'auto';
  var addressFields = billingFields === 'never' ? 'never' : (billingFields.address || 'auto');
  var countryNever = addressFields === 'never' || addressFields.country === 'never';
  var postalNever = addressFields === 'never' || addressFields.postalCode === 'never';
  var wantsPostal = (KIND === 'card' && !options.hidePostalCode) ||
    (KIND === 'payment' && !postalNever);
  if ((KIND === 'payment' && !countryNever) || KIND === 'address') {
    if (KIND === 'address') {
      row.appendChild(field('name', 'Full name', {autocomplete: 'name'}, true));
    }
    var country = field('country', 'Country', {tag: 'select', autocomplete: 'country'}, true);
    var select = fields.country.input;
    [['US', 'United States'], ['CA', 'Canada'], ['GB', 'United Kingdom'], ['FR', 'France'],
     ['DE', 'Germany'], ['AU', 'Australia'], ['JP', 'Japan'], ['IE', 'Ireland'],
     ['NL', 'Netherlands'], ['ES', 'Spain'], ['IT', 'Italy'], ['BR', 'Brazil'],
     ['MX', 'Mexico'], ['IN', 'India'], ['SG', 'Singapore']].forEach(function (c) {
      var opt = document.createElement('option');
      opt.value = c[0];
      opt.textContent = c[1];
      select.appendChild(opt);
    });
    var preset = (((options.defaultValues || {}).billingDetails || {}).address || {}).country ||
      (((options.defaultValues || {}).address) || {}).country;
    if (preset) select.value = preset;
    row.appendChild(country);
  }
  if (KIND === 'address') {
    row.appendChild(field('line1', 'Address line 1', {autocomplete: 'address-line1'}, true));
    row.appendChild(field('line2', 'Address line 2', {autocomplete: 'address-line2',
      placeholder: 'Apartment, suite, etc. (optional)'}, true));
    row.appendChild(field('city', 'City', {autocomplete: 'address-level2'}, true));
    row.appendChild(field('state', 'State', {autocomplete: 'address-level1'}, true));
  }
  if (wantsPostal || KIND === 'address') {
    row.appendChild(field('postal', KIND === 'card' ? 'ZIP' : 'ZIP code', {
      name: KIND === 'address' ? 'postalCode' : NAMES.postal,
      placeholder: KIND === 'card' ? 'ZIP' : '12345', autocomplete: 'postal-code', maxLength: 10},
      labelled));
  }
  if (KIND === 'payment') {
    var tab = document.createElement('div');
    tab.className = 'tab';
    tab.setAttribute('role', 'tab');
    tab.setAttribute('aria-selected', 'true');
    tab.textContent = 'Card';
    row.insertBefore(tab, row.firstChild);
  }

  var touched = {};

  function value(name) { return fields[name] ? fields[name].input.value.trim() : ''; }

  // Each part: [complete, error or null, empty]
  function checkNumber() {
    var d = digits(value('number'));
    var b = brandOf(d);
    if (!d) return [false, null, true];
    if (d.length < b[2]) {
      return [false, touched.number ? {code: 'incomplete_number',
        message: 'Your card number is incomplete.'} : null, false];
    }
    if (!luhn(d)) return [false, {code: 'invalid_number', message: 'Your card number is invalid.'}, false];
    return [true, null, false];
  }

  function checkExpiry() {
    var d = digits(value('expiry'));
    if (!d) return [false, null, true];
    if (d.length < 4) {
      return [false, touched.expiry ? {code: 'incomplete_expiry',
        message: "Your card's expiration date is incomplete."} : null, false];
    }
    var month = +d.slice(0, 2);
    var year = 2000 + +d.slice(2, 4);
    if (month < 1 || month > 12) {
      return [false, {code: 'invalid_expiry_month', message: "Your card's expiration date is invalid."}, false];
    }
    var now = new Date();
    if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) {
      return [false, {code: 'invalid_expiry_year_past',
        message: "Your card's expiration year is in the past."}, false];
    }
    return [true, null, false];
  }

  function checkCvc() {
    var d = digits(value('cvc'));
    if (!d) return [false, null, true];
    var need = brandOf(digits(value('number')))[3];
    if (d.length < 3 || (KIND !== 'cardCvc' && d.length < need)) {
      return [false, touched.cvc ? {code: 'incomplete_cvc',
        message: "Your card's security code is incomplete."} : null, false];
    }
    return [true, null, false];
  }

  function checkPostal() {
    var v = value('postal');
    if (!v) return [false, null, true];
    var country = value('country') || 'US';
    if (country === 'US' && !/^\d{5}(-?\d{4})?$/.test(v)) {
      return [false, touched.postal ? {code: 'incomplete_zip',
        message: 'Your postal code is incomplete.'} : null, false];
    }
    return [true, null, false];
  }

  function checkEmail() {
    var v = value('email');
    if (!v) return [false, null, true];
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) {
      return [false, touched.email ? {code: 'invalid_email',
        message: 'Your email address is invalid.'} : null, false];
    }
    return [true, null, false];
  }

  function checkText(name, optional) {
    var v = value(name);
    if (!v) return [!!optional, null, true];
    return [true, null, false];
  }

  function state() {
    var parts = [];
    if (fields.number) parts.push(['number', checkNumber()]);
    if (fields.expiry) parts.push(['expiry', checkExpiry()]);
    if (fields.cvc) parts.push(['cvc', checkCvc()]);
    if (fields.email) parts.push(['email', checkEmail()]);
    if (fields.name) parts.push(['name', checkText('name')]);
    if (fields.line1) parts.push(['line1', checkText('line1')]);
    if (fields.line2) parts.push(['line2', checkText('line2', true)]);
    if (fields.city) parts.push(['city', checkText('city')]);
    if (fields.state) parts.push(['state', checkText('state', true)]);
    if (fields.postal) parts.push(['postal', checkPostal()]);
    var complete = true, empty = true, error = null;
    parts.forEach(function (p) {
      var r = p[1];
      if (!r[0]) complete = false;
      if (!r[2] && p[0] !== 'country') empty = false;
      if (r[1] && !error) error = {type: 'validation_error', code: r[1].code, message: r[1].message};
      if (KIND === 'payment' || KIND === 'address' || KIND === 'linkAuthentication') {
        fields[p[0]].error.textContent = r[1] ? r[1].message : '';
        fields[p[0]].input.setAttribute('aria-invalid', r[1] ? 'true' : 'false');
      }
    });
    var d = digits(value('number'));
    var exp = digits(value('expiry'));
    var result = {
      elementType: KIND, empty: empty, complete: complete, error: error || undefined,
      brand: fields.number ? brandOf(d)[0] : undefined,
      value: {}
    };
    if (fields.postal && KIND === 'card') result.value.postalCode = value('postal');
    if (KIND === 'payment') result.value = {type: 'card'};
    if (KIND === 'linkAuthentication') result.value = {email: value('email')};
    if (KIND === 'address') {
      result.value = {name: value('name'), address: {
        line1: value('line1'), line2: value('line2') || null, city: value('city'),
        state: value('state'), postal_code: value('postal'), country: value('country')}};
      result.isNewAddress = true;
    }
    var card = {};
    if (fields.number) card.number = d;
    if (fields.expiry && exp.length === 4) {
      card.exp_month = +exp.slice(0, 2);
      card.exp_year = 2000 + +exp.slice(2, 4);
    }
    if (fields.cvc) card.cvc = digits(value('cvc'));
    if (fields.postal) card.postal_code = value('postal');
    if (fields.country) card.country = value('country');
    return {event: result, card: card};
  }

  function changed() {
    var s = state();
    document.body.classList.toggle('is-complete', s.event.complete);
    document.body.classList.toggle('is-invalid', !!s.event.error);
    send('change', s);
  }

  // Formatting and auto-advance (number -> expiry -> CVC -> postal code), as Stripe's.
  Card.attach({number: fields.number && fields.number.input,
               expiry: fields.expiry && fields.expiry.input,
               cvc: fields.cvc && fields.cvc.input,
               after: fields.postal && withCard ? fields.postal.input : null,
               spillAfter: true, onInput: changed});

  Object.keys(fields).forEach(function (name) {
    var input = fields[name].input;
    if (name !== 'number' && name !== 'expiry' && name !== 'cvc') {
      input.addEventListener('input', changed);  // the card parts report through attach
    }
    input.addEventListener('change', changed);
    input.addEventListener('focus', function () { send('focus', {elementType: KIND}); });
    input.addEventListener('blur', function () {
      touched[name] = true;
      changed();
      send('blur', {elementType: KIND});
    });
    input.addEventListener('keydown', function (ev) {
      if (ev.key === 'Escape') send('escape', {elementType: KIND});
    });
  });

  window.addEventListener('message', function (ev) {
    var msg = ev.data;
    if (!msg || !msg.__sb || ev.source !== window.parent) return;
    if (msg.type === 'collect') {
      Object.keys(fields).forEach(function (n) { touched[n] = true; });
      var s = state();
      window.parent.postMessage({__sb: true, id: ID, type: 'collected', nonce: msg.nonce,
        payload: s}, PARENT);
    } else if (msg.type === 'focus') {
      var first = fields.number || fields.expiry || fields.cvc || fields.name || fields.email;
      if (first) first.input.focus();
    } else if (msg.type === 'blur') {
      if (document.activeElement) document.activeElement.blur();
    } else if (msg.type === 'clear') {
      Object.keys(fields).forEach(function (n) {
        if (n !== 'country') fields[n].input.value = '';
      });
      touched = {};
      changed();
    } else if (msg.type === 'update') {
      var opts = msg.options || {};
      if (opts.disabled !== undefined) {
        Object.keys(fields).forEach(function (n) { fields[n].input.disabled = !!opts.disabled; });
      }
      if (opts.value && typeof opts.value === 'object' && opts.value.postalCode && fields.postal) {
        fields.postal.input.value = opts.value.postalCode;
        changed();
      }
    }
  });

  function resize() { send('resize', {height: Math.ceil(document.documentElement.scrollHeight)}); }
  if (window.ResizeObserver) new ResizeObserver(resize).observe(document.body);
  if (options.value && options.value.postalCode && fields.postal) {
    fields.postal.input.value = options.value.postalCode;
  }
  resize();
  send('ready', {elementType: KIND});
  send('state', state());  // the parent records it without firing 'change'
})();
