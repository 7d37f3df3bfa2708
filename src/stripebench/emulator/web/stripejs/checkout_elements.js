  // ------------------------------------------------------------------ Elements with Checkout Sessions
  // (Inserted into stripe.js's closure after embedded.js: Stripe, integrationError,
  // challenge and the Elements group are in scope; releases.js picks the entry points.)
  //
  // A Checkout Session created with ui_mode=custom (`elements` from API 2026-03-25.dahlia)
  // is paid on the merchant's page. Up to basil `stripe.initCheckout({fetchClientSecret})`
  // resolves to a checkout object with the actions on it and `session()`; from clover
  // `initCheckout` / `initCheckoutElementsSdk({clientSecret})` returns the object at once
  // and the actions come from `loadActions()` (with `getSession()`); dahlia dropped the
  // name initCheckout. Both read and change the session through the emulator's
  // /v1/payment_pages/{cs} endpoints (resources/checkout_elements.py), which answer with
  // the session as Stripe.js shows it; `confirm()` makes a PaymentMethod from the Payment
  // Element and pays the session there, with the hosted page's completion code.

  function checkoutSecret(method, value) {
    if (typeof value !== 'string' || value.indexOf('cs_') !== 0 ||
        value.indexOf('_secret_') < 0) {
      throw integrationError('stripe.' + method + '(): the client secret should be a ' +
        'Checkout Session client_secret (cs_..._secret_...). You specified: ' + value + '.');
    }
    return value;
  }

  function CheckoutSdk(stripe, method, options) {
    var eo = options.elementsOptions || {};
    this._stripe = stripe;
    this._method = method;
    this._options = options;
    this._handlers = [];
    this._view = null;
    this._paymentNeeded = true;
    this._secret = null;
    this._group = stripe.elements({appearance: eo.appearance, fonts: eo.fonts});
    this._shippingGroup = stripe.elements({appearance: eo.appearance, fonts: eo.fonts});
    this._slots = {};
    this._loaded = null;
  }

  CheckoutSdk.prototype._call = function (method, suffix, params) {
    var self = this;
    var body = Object.assign({client_secret: this._secret}, params || {});
    var id = this._secret.split('_secret_')[0];
    return this._stripe._request(method, '/v1/payment_pages/' + encodeURIComponent(id) + suffix,
      body).then(function (res) {
      if (res.error) return {fatal: res.error, error: {message: res.error.message, code: null}};
      self._view = res.data.session;
      self._paymentNeeded = !!res.data.payment_needed;
      return res.data;
    });
  };

  CheckoutSdk.prototype._load = function (secret) {
    var self = this;
    this._loaded = Promise.resolve(secret).then(function (value) {
      self._secret = checkoutSecret(self._method, value);
      return self._call('GET', '');
    }).then(function (data) {
      if (data.fatal) {
        var err = integrationError(data.fatal.message);
        err.type = data.fatal.type;
        throw err;
      }
      return data;
    });
    return this._loaded;
  };

  CheckoutSdk.prototype._emitChange = function () {
    var session = this._view;
    this._handlers.slice().forEach(function (h) {
      try { h(session); } catch (e) { setTimeout(function () { throw e; }); }
    });
  };

  CheckoutSdk.prototype.on = function (event, handler) {
    if (event !== 'change') {
      throw integrationError('checkout.on(): the checkout object emits only \'change\'; ' +
        'you passed ' + event + '.');
    }
    this._handlers.push(handler);
  };

  // One change to the session: {type: 'success', session} or {type: 'error', error}.
  CheckoutSdk.prototype._change = function (params) {
    var self = this;
    return this._loaded.then(function () { return self._call('POST', '', params); })
      .then(function (data) {
        if (data.error) return {type: 'error', error: data.error};
        self._emitChange();
        return {type: 'success', session: self._view};
      });
  };

  function contact(value) {
    if (!value) return undefined;
    return {name: value.name || undefined, address: value.address || undefined};
  }

  CheckoutSdk.prototype._actions = function () {
    var self = this;
    function change(action, key) {
      return function (value) {
        var params = {action: action};
        params[key || 'value'] = key === 'address' ? contact(value) : (value || '');
        return self._change(params);
      };
    }
    return {
      getSession: function () { return self._view; },
      updateEmail: change('email'),
      updatePhoneNumber: change('phone'),
      updateIndividualName: change('individual_name'),
      updateBusinessName: change('business_name'),
      updateBillingAddress: change('billing_address', 'address'),
      updateShippingAddress: change('shipping_address', 'address'),
      applyPromotionCode: change('promotion_code'),
      removePromotionCode: function () { return self._change({action: 'remove_promotion_code'}); },
      updateShippingOption: change('shipping_option'),
      addOptionalLineItem: change('add_optional'),
      removeOptionalLineItem: change('remove_optional'),
      updateLineItemQuantity: function (args) {
        args = args || {};
        return self._change({action: 'quantity', line_item: args.lineItem,
                             quantity: args.quantity});
      },
      updateTaxIdInfo: function () {
        throw integrationError('checkout.updateTaxIdInfo() is not supported by the local ' +
          'Stripe emulator (tax ID collection is emulated on the hosted page only).');
      },
      runServerUpdate: function (fn) {
        return Promise.resolve(typeof fn === 'function' ? fn() : null).then(function () {
          return self._call('GET', '');
        }).then(function (data) {
          if (data.error) return {type: 'error', error: data.error};
          self._emitChange();
          return {type: 'success', session: self._view};
        });
      },
      validateElements: function () {
        var el = self._group.getElement('payment');
        if (!el) {
          return Promise.resolve({type: 'error', error: {code: 'no_elements',
            message: 'No Elements are mounted.', validation_errors: []}});
        }
        return self._group.submit().then(function (r) {
          if (!r.error) return {type: 'success', session: self._view};
          return {type: 'error', error: {code: 'validation_error', message: r.error.message,
            validation_errors: [{elementType: 'payment', message: r.error.message}]}};
        });
      },
      confirm: function (args) { return self._confirm(args || {}); }
    };
  };

  // The customer's details for confirm: what was passed, else the Address Elements.
  CheckoutSdk.prototype._addresses = function (args) {
    function fromElement(group) {
      var el = group.getElement('address');
      if (!el) return Promise.resolve(undefined);
      return el.getValue().then(function (v) {
        return v.complete ? {name: v.value.name, address: v.value.address} : undefined;
      });
    }
    return Promise.all([
      args.billingAddress ? Promise.resolve(args.billingAddress) : fromElement(this._group),
      args.shippingAddress ? Promise.resolve(args.shippingAddress)
        : fromElement(this._shippingGroup)
    ]).then(function (both) { return {billing: both[0], shipping: both[1]}; });
  };

  CheckoutSdk.prototype._confirm = function (args) {
    var self = this;
    return this._loaded.then(function () { return self._syncing; }).then(function () {
      return self._addresses(args);
    }).then(function (addr) {
      var pm;
      if (!self._paymentNeeded) {
        pm = Promise.resolve({});
      } else if (typeof args.paymentMethod === 'string') {
        pm = Promise.resolve({id: args.paymentMethod});
      } else {
        if (!self._group.getElement('payment')) {
          throw integrationError('checkout.confirm(): no Payment Element is mounted. Create ' +
            'one with checkout.createPaymentElement() and mount it, or pass paymentMethod.');
        }
        var billing = {};
        var email = args.email || (self._view && self._view.email);
        if (email) billing.email = email;
        if (addr.billing && addr.billing.name) billing.name = addr.billing.name;
        if (addr.billing && addr.billing.address) billing.address = addr.billing.address;
        pm = self._stripe._paymentMethodFrom({billing_details: billing}, self._group);
      }
      return pm.then(function (r) {
        if (r.error) return {type: 'error', error: {message: r.error.message, code: null}};
        return self._call('POST', '/confirm', {
          payment_method: r.id, email: args.email, phone: args.phoneNumber,
          billing_address: contact(addr.billing), shipping_address: contact(addr.shipping),
          save_payment_method: args.savePaymentMethod
        }).then(function (data) { return self._afterConfirm(data, args); });
      });
    });
  };

  CheckoutSdk.prototype._afterConfirm = function (data, args) {
    var self = this;
    if (data.error) {
      if (!data.fatal) this._emitChange();
      return {type: 'error', error: data.error};
    }
    if (data.next_action) {  // 3D Secure: the challenge, then the session picks up from it
      return challenge(data.next_action).then(function () {
        return self._call('POST', '/resume', {});
      }).then(function (next) { return self._afterConfirm(next, args); });
    }
    this._emitChange();
    var target = args.returnUrl || data.redirect;
    if (args.redirect === 'if_required' || !target) {
      return {type: 'success', session: this._view};
    }
    window.location.assign(target.replace('{CHECKOUT_SESSION_ID}', this._view.id));
    return new Promise(function () {});  // the page is going away
  };

  // ---- the Elements a checkout object creates (one of each; no wallet is available).
  var CHECKOUT_ELEMENTS = {
    payment: ['createPaymentElement', 'getPaymentElement', 'payment'],
    billingAddress: ['createBillingAddressElement', 'getBillingAddressElement', 'address'],
    shippingAddress: ['createShippingAddressElement', 'getShippingAddressElement', 'address'],
    expressCheckout: ['createExpressCheckoutElement', 'getExpressCheckoutElement',
                      'expressCheckout'],
    // dahlia's Contact Details Element (the Link Authentication Element renamed): email.
    contactDetails: ['createContactDetailsElement', 'getContactDetailsElement',
                     'linkAuthentication']
  };
  var SYNCED = {contactDetails: 'email', billingAddress: 'billing_address',
                shippingAddress: 'shipping_address'};
  Object.keys(CHECKOUT_ELEMENTS).forEach(function (slot) {
    var spec = CHECKOUT_ELEMENTS[slot];
    CheckoutSdk.prototype[spec[0]] = function (options) {
      var existing = this._slots[slot];
      if (existing && !existing._destroyed) {
        throw integrationError('checkout.' + spec[0] + '(): can only create one ' + slot +
          ' Element.');
      }
      var group = slot === 'shippingAddress' ? this._shippingGroup : this._group;
      var opts = Object.assign({}, options || {});
      if (spec[2] === 'address') opts.mode = slot === 'shippingAddress' ? 'shipping' : 'billing';
      var el = group.create(spec[2], opts);
      this._slots[slot] = el;
      if (SYNCED[slot]) this._sync(SYNCED[slot], el);
      return el;
    };
    CheckoutSdk.prototype[spec[1]] = function () {
      var el = this._slots[slot];
      return el && !el._destroyed ? el : null;
    };
  });
  // What the customer completes in the email and address Elements goes to the session at
  // once (as Stripe.js does), so session() / canConfirm and 'change' follow the page.
  CheckoutSdk.prototype._sync = function (action, el) {
    var self = this;
    el.on('change', function (ev) {
      if (!ev || !ev.complete || !ev.value || !self._secret) return;
      var params = {action: action};
      if (action === 'email') params.value = ev.value.email;
      else params.address = contact(ev.value);
      self._syncing = self._loaded.then(function () { return self._change(params); });
    });
  };

  ['CurrencySelector', 'TaxId', 'Terms', 'LinkSignup', 'PaymentForm']
    .forEach(function (name) {
      CheckoutSdk.prototype['create' + name + 'Element'] = function () {
        throw integrationError('checkout.create' + name + 'Element() is not supported by ' +
          'the local Stripe emulator (only the Payment, Address, Contact Details and Express ' +
          'Checkout Elements are).');
      };
      CheckoutSdk.prototype['get' + name + 'Element'] = function () { return null; };
    });
  CheckoutSdk.prototype.changeAppearance = function (appearance) {
    this._group.update({appearance: appearance});
    this._shippingGroup.update({appearance: appearance});
  };
  CheckoutSdk.prototype.loadFonts = function () {};

  // clover on: the object now, its actions once the session has loaded.
  CheckoutSdk.prototype.loadActions = function () {
    var self = this;
    return this._loaded.then(function () {
      return {type: 'success', actions: self._actions()};
    }, function (err) {
      return {type: 'error', error: {message: err.message, code: null}};
    });
  };

  function initCheckoutSdk(stripe, method, options) {
    options = options || {};
    if (options.fetchClientSecret !== undefined) {
      throw integrationError('stripe.' + method + '(): fetchClientSecret was replaced by ' +
        'clientSecret (a string, or a Promise of one) in Stripe.js clover.');
    }
    if (typeof options.clientSecret !== 'string' && !(options.clientSecret &&
        typeof options.clientSecret.then === 'function')) {
      throw integrationError('stripe.' + method + '(): clientSecret is required: the ' +
        'Checkout Session\'s client_secret, or a Promise of it.');
    }
    var sdk = new CheckoutSdk(stripe, method, options);
    sdk._load(options.clientSecret).catch(function () {});  // loadActions reports it
    return surface(sdk, ['on', 'loadActions', 'changeAppearance', 'loadFonts'].concat(
      elementMethods(['CurrencySelector', 'TaxId', 'Terms', 'LinkSignup'])));
  }

  // The checkout object the page gets: the public methods as its own properties (what
  // @stripe/react-stripe-js spreads into useCheckout()), none of the internals.
  function surface(sdk, names) {
    var out = {};
    names.forEach(function (name) { out[name] = sdk[name].bind(sdk); });
    return out;
  }

  function elementMethods(unsupportedNames) {
    var names = [];
    Object.keys(CHECKOUT_ELEMENTS).forEach(function (slot) {
      names = names.concat(CHECKOUT_ELEMENTS[slot].slice(0, 2));
    });
    unsupportedNames.forEach(function (name) {
      names.push('create' + name + 'Element', 'get' + name + 'Element');
    });
    return names;
  }

  // Up to basil: a Promise of the checkout object, actions on it, `session()`.
  function initLegacyCheckout(stripe, options) {
    options = options || {};
    if (typeof options.fetchClientSecret !== 'function') {
      throw integrationError('stripe.initCheckout(): fetchClientSecret is required: a ' +
        'function returning a Promise of the Checkout Session\'s client_secret' +
        (options.clientSecret ? ' (clientSecret is accepted from Stripe.js clover on).' : '.'));
    }
    var sdk = new CheckoutSdk(stripe, 'initCheckout', options);
    return sdk._load(Promise.resolve().then(options.fetchClientSecret)).then(function () {
      var checkout = Object.assign(sdk._actions(), surface(sdk, ['on', 'changeAppearance',
        'loadFonts'].concat(elementMethods(['CurrencySelector', 'TaxId', 'LinkSignup']))));
      checkout.session = checkout.getSession;
      delete checkout.getSession;
      return checkout;
    });
  }
