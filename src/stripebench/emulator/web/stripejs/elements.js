  // ------------------------------------------------------------------ Elements
  // (Inserted into stripe.js's closure: helpers such as integrationError, hostUrl and
  // nextId are in scope; Stripe's methods reach Elements through these functions.)

  // expressCheckout and paymentRequestButton mount no frame: no wallet is available in the
  // emulator, so they report ready with no available payment methods (as Stripe.js does in
  // a browser without Apple Pay / Google Pay / Link).
  var ELEMENT_TYPES = ['card', 'cardNumber', 'cardExpiry', 'cardCvc', 'payment', 'address',
                       'linkAuthentication', 'expressCheckout', 'paymentRequestButton'];
  var FRAMELESS = ['expressCheckout', 'paymentRequestButton'];
  var checkElementType = function (type) {};  // per release: set in releases.js
  var FRAME_HEIGHT = {card: 40, cardNumber: 40, cardExpiry: 40, cardCvc: 40, payment: 230,
                      address: 340, linkAuthentication: 80};

  function Element(group, type, options) {
    this._group = group;
    this._type = type;
    this._options = options || {};
    this._id = nextId('sb-el-');
    this._handlers = {};
    this._state = {event: {elementType: type, empty: true, complete: false}, card: {}};
    this._frame = null;
    this._container = null;
    this._pending = {};
    this._onMessage = this._onMessage.bind(this);
    this.__stripebench = true;
  }

  Element.prototype._frameUrl = function () {
    var opts = {hidePostalCode: !!this._options.hidePostalCode, value: this._options.value,
                defaultValues: this._options.defaultValues, mode: this._options.mode,
                fields: this._options.fields};
    return hostUrl('js.stripe.com', '/v3/elements/' + this._type + '.html') +
      '?type=' + encodeURIComponent(this._type) + '&id=' + encodeURIComponent(this._id) +
      '&origin=' + encodeURIComponent(location.origin === 'null' ? '*' : location.origin) +
      '&options=' + encodeURIComponent(JSON.stringify(opts));
  };

  Element.prototype.mount = function (target) {
    var node = typeof target === 'string' ? document.querySelector(target) : target;
    if (!node) {
      throw new Error('The selector you specified (' + target + ') applies to no DOM elements ' +
        'that are currently on the page.');
    }
    if (this._frame) this.unmount();
    this._container = node;
    node.classList.add('StripeElement', 'StripeElement--empty');
    if (FRAMELESS.indexOf(this._type) >= 0) {  // no wallet to show: an empty element
      var self = this;
      setTimeout(function () {
        self._emit('ready', {elementType: self._type, availablePaymentMethods: undefined});
      }, 0);
      return;
    }
    var frame = document.createElement('iframe');
    frame.name = '__privateStripeFrame' + this._id.replace(/\D/g, '');
    frame.title = this._type === 'address' ? 'Secure address input frame'
      : this._type === 'payment' ? 'Secure payment input frame'
        : this._type === 'linkAuthentication' ? 'Secure email input frame'
          : 'Secure card payment input frame';
    frame.setAttribute('frameborder', '0');
    frame.setAttribute('allowtransparency', 'true');
    frame.setAttribute('scrolling', 'no');
    frame.setAttribute('data-stripebench-element', this._type);
    frame.style.cssText = 'border:none;margin:0;padding:0;width:100%;display:block;' +
      'min-width:100%;overflow:hidden;height:' + FRAME_HEIGHT[this._type] + 'px;';
    frame.src = this._frameUrl();
    window.addEventListener('message', this._onMessage);
    node.appendChild(frame);
    this._frame = frame;
  };

  Element.prototype._onMessage = function (ev) {
    var msg = ev.data;
    if (!msg || !msg.__sb || msg.id !== this._id || !this._frame ||
        ev.source !== this._frame.contentWindow) return;
    var payload = msg.payload || {};
    if (msg.type === 'resize' && payload.height) {
      this._frame.style.height = Math.max(payload.height, 20) + 'px';
    } else if (msg.type === 'ready') {
      this._emit('ready', {elementType: this._type});
    } else if (msg.type === 'state') {
      this._state = payload;
    } else if (msg.type === 'change') {
      this._state = payload;
      this._updateClasses();
      this._emit('change', payload.event);
    } else if (msg.type === 'focus' || msg.type === 'blur' || msg.type === 'escape') {
      if (this._container) this._container.classList.toggle('StripeElement--focus', msg.type === 'focus');
      this._emit(msg.type, {elementType: this._type});
    } else if (msg.type === 'collected') {
      var resolve = this._pending[msg.nonce];
      delete this._pending[msg.nonce];
      this._state = payload;
      this._updateClasses();
      if (resolve) resolve(payload);
    }
  };

  Element.prototype._updateClasses = function () {
    var c = this._container;
    if (!c) return;
    var e = this._state.event || {};
    c.classList.toggle('StripeElement--empty', !!e.empty);
    c.classList.toggle('StripeElement--complete', !!e.complete);
    c.classList.toggle('StripeElement--invalid', !!e.error);
  };

  // Ask the iframe for its current values (and show any errors in it).
  Element.prototype._collect = function () {
    var self = this;
    if (!this._frame || !this._frame.contentWindow) return Promise.resolve(this._state);
    return new Promise(function (resolve) {
      var nonce = nextId('collect-');
      self._pending[nonce] = resolve;
      self._frame.contentWindow.postMessage({__sb: true, type: 'collect', nonce: nonce}, '*');
      setTimeout(function () {
        if (self._pending[nonce]) { delete self._pending[nonce]; resolve(self._state); }
      }, 3000);
    });
  };

  Element.prototype._post = function (msg) {
    msg.__sb = true;
    if (this._frame && this._frame.contentWindow) this._frame.contentWindow.postMessage(msg, '*');
  };

  Element.prototype._emit = function (event, payload) {
    (this._handlers[event] || []).slice().forEach(function (h) {
      try { h(payload); } catch (e) { setTimeout(function () { throw e; }); }
    });
  };

  Element.prototype.on = function (event, handler) {
    (this._handlers[event] = this._handlers[event] || []).push(handler);
    return this;
  };
  Element.prototype.addEventListener = Element.prototype.on;
  Element.prototype.once = function (event, handler) {
    var self = this;
    function wrapped(p) { self.off(event, wrapped); handler(p); }
    return this.on(event, wrapped);
  };
  Element.prototype.off = function (event, handler) {
    if (!handler) { delete this._handlers[event]; return this; }
    this._handlers[event] = (this._handlers[event] || []).filter(function (h) { return h !== handler; });
    return this;
  };
  Element.prototype.removeEventListener = Element.prototype.off;
  Element.prototype.update = function (options) {
    Object.assign(this._options, options || {});
    this._post({type: 'update', options: options || {}});
  };
  Element.prototype.focus = function () { this._post({type: 'focus'}); };
  Element.prototype.blur = function () { this._post({type: 'blur'}); };
  Element.prototype.clear = function () { this._post({type: 'clear'}); };
  Element.prototype.collapse = function () {};
  Element.prototype.unmount = function () {
    window.removeEventListener('message', this._onMessage);
    if (this._frame && this._frame.parentNode) this._frame.parentNode.removeChild(this._frame);
    if (this._container) {
      this._container.classList.remove('StripeElement', 'StripeElement--empty',
        'StripeElement--complete', 'StripeElement--invalid', 'StripeElement--focus');
    }
    this._frame = null;
    this._container = null;
  };
  Element.prototype.destroy = function () {
    this.unmount();
    this._destroyed = true;
    this._group._remove(this);
  };
  Element.prototype.getValue = function () {   // AddressElement
    return this._collect().then(function (s) {
      var e = s.event || {};
      return {complete: !!e.complete, isNewAddress: true, value: e.value || {}};
    });
  };

  function Elements(stripe, options) {
    this._stripe = stripe;
    this._options = Object.assign({}, options || {});
    this._elements = {};
    this._handlers = {};
    this._submitted = false;
  }

  Elements.prototype.create = function (type, options) {
    checkElementType(type);
    var exists = this._elements[type];
    if (exists && !exists._destroyed) {
      throw new Error('Can only create one Element of type ' + type + '.');
    }
    var el = new Element(this, type, options);
    this._elements[type] = el;
    return el;
  };
  Elements.prototype.getElement = function (type) {
    if (typeof type === 'object' && type && type.__stripebench) return type;
    // @stripe/react-stripe-js passes its components, which carry __elementType.
    if (typeof type === 'function' && type.__elementType) type = type.__elementType;
    var el = this._elements[type];
    return el && !el._destroyed ? el : null;
  };
  Elements.prototype._remove = function (el) {
    if (this._elements[el._type] === el) delete this._elements[el._type];
  };
  Elements.prototype.update = function (options) { Object.assign(this._options, options || {}); };
  Elements.prototype.fetchUpdates = function () { return Promise.resolve({}); };
  // Group events ('update-end' after elements.update()).
  Elements.prototype.on = function (event, handler) {
    (this._handlers[event] = this._handlers[event] || []).push(handler);
    return this;
  };
  Elements.prototype.off = function (event, handler) {
    var list = this._handlers[event] || [];
    this._handlers[event] = handler ? list.filter(function (h) { return h !== handler; }) : [];
    return this;
  };
  Elements.prototype._emit = Element.prototype._emit;
  Elements.prototype.submit = function () {
    var self = this;
    var el = this._elements.payment || this._elements.card;
    if (!el) return Promise.resolve(validationError('missing_element', 'No Payment Element is mounted.'));
    return el._collect().then(function (s) {
      var e = s.event || {};
      if (e.complete) { self._submitted = true; return {}; }
      return {error: e.error || {type: 'validation_error', code: 'incomplete_number',
                                 message: 'Your card number is incomplete.'}};
    });
  };

  // Billing details a Payment Element was told not to collect (`fields.billingDetails`
  // 'never') must come with the confirm / createPaymentMethod call, as Stripe.js insists.
  var BILLING_PARTS = {name: ['name'], email: ['email'], phone: ['phone'],
    address: ['address.line1', 'address.line2', 'address.city', 'address.state',
              'address.country', 'address.postal_code']};
  var ADDRESS_PARTS = {line1: 'line1', line2: 'line2', city: 'city', state: 'state',
    country: 'country', postalCode: 'postal_code'};
  function neverFields(group) {
    var el = group && group.getElement('payment');
    var bd = el && el._options.fields && el._options.fields.billingDetails;
    if (!bd) return [];
    var out = [];
    Object.keys(BILLING_PARTS).forEach(function (k) {
      var v = bd === 'never' ? 'never' : bd[k];
      if (v === 'never') { out = out.concat(BILLING_PARTS[k]); return; }
      if (k === 'address' && v && typeof v === 'object') {
        Object.keys(ADDRESS_PARTS).forEach(function (part) {
          if (v[part] === 'never') out.push('address.' + ADDRESS_PARTS[part]);
        });
      }
    });
    return out;
  }
  function missingNeverField(group, billing, method) {
    var missing = null;
    neverFields(group).some(function (path) {
      var node = billing || {};
      var parts = path.split('.');
      for (var i = 0; i < parts.length; i++) {
        if (!node || typeof node !== 'object' || !(parts[i] in node)) { missing = path; return true; }
        node = node[parts[i]];
      }
      return false;
    });
    if (!missing) return null;
    return integrationError('You specified "never" for fields.billing_details.' + missing +
      ' when creating the payment Element, but did not pass ' + method +
      '.billing_details.' + missing + ' when calling ' +
      (method === 'params' ? 'stripe.createPaymentMethod' :
        'stripe.confirmPayment or stripe.confirmSetup') +
      '. If you opt out of collecting data via the payment Element using the fields option, ' +
      'the data must be passed at confirm-time.');
  }

  // Card details from the mounted element(s) of a group, as API params.
  function cardParams(group, first) {
    var parts = [];
    if (first && first._type !== 'payment' && first._type !== 'card' && first._type !== 'address') {
      ['cardNumber', 'cardExpiry', 'cardCvc'].forEach(function (t) {
        var el = group.getElement(t);
        if (el) parts.push(el);
      });
    } else if (first) {
      parts.push(first);
    }
    return Promise.all(parts.map(function (el) { return el._collect(); })).then(function (states) {
      var card = {};
      var error = null;
      var complete = true;
      states.forEach(function (s) {
        Object.assign(card, s.card || {});
        var e = s.event || {};
        if (!e.complete) complete = false;
        if (e.error && !error) error = e.error;
      });
      if (!complete || error) {
        return {error: error || (!card.number ? {type: 'validation_error', code: 'incomplete_number',
          message: 'Your card number is incomplete.'} : {type: 'validation_error',
          code: 'incomplete', message: 'Your card details are incomplete.'})};
      }
      return {card: card};
    });
  }
