// Stripe.js for the stripebench local Stripe emulator (our own implementation).
//
// It talks to the emulator it was served from: loaded from https://js.stripe.com/...
// (Stripe's hosts routed to the emulator) it calls https://api.stripe.com; loaded from a
// plain path (http://127.0.0.1:PORT/js.stripe.com/v3/) it calls that origin's /v1/.
// Elements are iframes served next to this script; card data stays in them until
// Stripe.js asks for it (postMessage 'collect') to create a PaymentMethod.
// The file is served with elements.js, embedded.js and releases.js inserted at
// /*__PARTS__*/ (web/stripejs/__init__.py): one closure, one script for every release.
(function () {
  'use strict';
  if (window.Stripe && window.Stripe.__stripebench) return;

  var RELEASE = __STRIPE_VERSION__;
  var current = document.currentScript;
  var scriptUrl = new URL(current && current.src ? current.src : 'https://js.stripe.com/v3/');
  var ROUTED = scriptUrl.hostname === 'js.stripe.com';

  // A URL on one of Stripe's hosts, reachable the way this script was.
  function hostUrl(host, path) {
    return ROUTED ? 'https://' + host + path : scriptUrl.origin + '/' + host + path;
  }
  var API_BASE = ROUTED ? 'https://api.stripe.com' : scriptUrl.origin;

  // ------------------------------------------------------------------ helpers

  function encodeForm(params) {
    var pairs = [];
    function walk(prefix, value) {
      if (value === undefined) return;
      if (value === null) { pairs.push([prefix, '']); return; }
      if (Array.isArray(value)) {
        value.forEach(function (v, i) { walk(prefix + '[' + i + ']', v); });
      } else if (typeof value === 'object') {
        Object.keys(value).forEach(function (k) { walk(prefix ? prefix + '[' + k + ']' : k, value[k]); });
      } else {
        pairs.push([prefix, String(value)]);
      }
    }
    walk('', params);
    return pairs.map(function (p) {
      return encodeURIComponent(p[0]).replace(/%5B/g, '[').replace(/%5D/g, ']') + '=' +
        encodeURIComponent(p[1]);
    }).join('&');
  }

  function intentFromSecret(secret) {
    if (typeof secret !== 'string' || secret.indexOf('_secret_') < 0) {
      throw new Error('Invalid value for clientSecret: expected a client secret of the form ' +
        '${id}_secret_${secret}. You specified: ' + secret + '.');
    }
    var id = secret.split('_secret_')[0];
    if (id.indexOf('seti_') === 0) return {id: id, kind: 'setup_intent', path: '/v1/setup_intents/'};
    if (id.indexOf('pi_') === 0) return {id: id, kind: 'payment_intent', path: '/v1/payment_intents/'};
    throw new Error('Invalid client secret: ' + secret);
  }

  function integrationError(message) {
    var err = new Error(message);
    err.name = 'IntegrationError';
    return err;
  }

  function validationError(code, message) {
    return {error: {type: 'validation_error', code: code, message: message}};
  }

  var uid = 0;
  function nextId(prefix) { uid += 1; return prefix + uid; }

  // ------------------------------------------------------------------ Stripe

  function Stripe(key, options) {
    if (!(this instanceof Stripe)) return new Stripe(key, options);
    if (typeof key !== 'string') {
      throw integrationError('Missing value for Stripe(): apiKey should be a string.');
    }
    if (!key) {
      throw integrationError('Please call Stripe() with your publishable key. You used an ' +
        'empty string.');
    }
    if (/^(sk|rk)_/.test(key)) {
      throw integrationError('You should not use your secret key with Stripe.js. Please pass ' +
        'a publishable key instead.');
    }
    // A placeholder ('YOUR_PUBLISHABLE_KEY', '<pk>') fails here, as it does with Stripe.js.
    if (!/^pk_(test|live)_\w+$/.test(key)) {
      throw integrationError('Invalid value for Stripe(): apiKey should be a publishable key ' +
        'starting with pk_test_ or pk_live_. You specified: ' + key + '.');
    }
    this._key = key;
    this._options = options || {};
    this._apiVersion = this._options.apiVersion || null;
    this._account = this._options.stripeAccount || null;
  }
  Stripe.version = RELEASE;
  Stripe.__stripebench = true;

  Stripe.prototype._registerWrapper = function () {};
  Stripe.prototype.registerAppInfo = function () {};

  Stripe.prototype._request = function (method, path, params) {
    var headers = {'Authorization': 'Bearer ' + this._key};
    if (this._apiVersion) headers['Stripe-Version'] = this._apiVersion;
    if (this._account) headers['Stripe-Account'] = this._account;
    var url = API_BASE + path;
    var init = {method: method, headers: headers};
    if (method === 'GET') {
      var q = encodeForm(params || {});
      if (q) url += '?' + q;
    } else {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      init.body = encodeForm(params || {});
    }
    return fetch(url, init).then(function (resp) {
      return resp.json().then(function (body) {
        if (!resp.ok) return {error: (body && body.error) || {type: 'api_error', message: 'Request failed'}};
        return {data: body};
      });
    }, function (err) {
      return {error: {type: 'api_connection_error', message: 'Could not reach the Stripe API: ' + err}};
    });
  };

  Stripe.prototype.elements = function (options) { return new Elements(this, options); };

  Stripe.prototype._paymentMethodFrom = function (spec, group) {
    // spec: 'pm_...' | {card: Element, billing_details} | {elements} | undefined
    var self = this;
    if (!spec) return Promise.resolve({});
    if (typeof spec === 'string') return Promise.resolve({id: spec});
    var element = spec.card || spec.element || null;
    var billing = Object.assign({}, spec.billing_details || {});
    if (!element && group) element = group.getElement('payment') || group.getElement('card') ||
      group.getElement('cardNumber');
    if (!element) return Promise.resolve({});
    var grp = element._group || group;
    return cardParams(grp, element).then(function (r) {
      if (r.error) return {error: r.error};
      var card = r.card;
      var address = Object.assign({}, billing.address || {});
      if (card.postal_code && !address.postal_code) address.postal_code = card.postal_code;
      if (card.country && !address.country) address.country = card.country;
      var addressEl = grp && grp.getElement('address');
      var pre = addressEl ? addressEl._collect() : Promise.resolve(null);
      return pre.then(function (addr) {
        if (addr && addr.event && addr.event.value && addr.event.value.address) {
          var v = addr.event.value;
          Object.keys(v.address).forEach(function (k) {
            if (v.address[k] && !address[k]) address[k] = v.address[k];
          });
          if (v.name && !billing.name) billing.name = v.name;
        }
        if (Object.keys(address).length) billing.address = address;
        var params = {type: 'card', card: {number: card.number, exp_month: card.exp_month,
          exp_year: card.exp_year, cvc: card.cvc}};
        if (Object.keys(billing).length) params.billing_details = billing;
        if (spec.metadata) params.metadata = spec.metadata;
        if (spec.paramsOnly) return {params: params};
        return self._request('POST', '/v1/payment_methods', params).then(function (res) {
          if (res.error) return {error: res.error};
          return {id: res.data.id, paymentMethod: res.data};
        });
      });
    });
  };

  Stripe.prototype.createPaymentMethod = function (a, b, c) {
    // createPaymentMethod({type, card, billing_details}) | ({elements, params})
    // | legacy createPaymentMethod('card', element, {billing_details})
    var spec;
    if (typeof a === 'string') spec = Object.assign({type: a, card: b}, c || {});
    else spec = a || {};
    var group = spec.elements || null;
    var billing = spec.billing_details || (spec.params && spec.params.billing_details);
    if (group && !group._submitted && group.getElement('payment')) {
      return Promise.reject(integrationError('elements.submit() must be called before ' +
        'createPaymentMethod(). Call elements.submit() as soon as your customer presses pay, ' +
        'prior to any asynchronous work. Integration guide: ' +
        'https://stripe.com/docs/payments/accept-a-payment-deferred'));
    }
    var never = group && missingNeverField(group, billing, 'params');
    if (never) return Promise.reject(never);
    return this._paymentMethodFrom({card: spec.card, billing_details: billing,
      metadata: spec.metadata || (spec.params && spec.params.metadata)}, group).then(function (r) {
      if (r.error) return {error: r.error};
      if (!r.paymentMethod) return validationError('missing_card', 'Pass a card Element or elements.');
      return {paymentMethod: r.paymentMethod};
    });
  };

  // Deferred intents confirmed on the server: the card goes into a ConfirmationToken.
  Stripe.prototype.createConfirmationToken = function (options) {
    var self = this;
    options = options || {};
    var group = options.elements;
    if (!group || !group.getElement) {
      return Promise.reject(integrationError('Invalid value for createConfirmationToken: ' +
        'elements should be an Elements group. You specified: ' + typeof group + '.'));
    }
    if (!group.getElement('payment')) {
      return Promise.reject(integrationError('Invalid value for createConfirmationToken: ' +
        'elements should have a mounted Payment Element or Express Checkout Element.'));
    }
    if (!group._submitted) {
      return Promise.reject(integrationError('elements.submit() must be called before ' +
        'stripe.createConfirmationToken(). Call elements.submit() as soon as your customer ' +
        'presses pay, prior to any asynchronous work. Integration guide: ' +
        'https://stripe.com/docs/payments/accept-a-payment-deferred'));
    }
    var params = options.params || {};
    var pmData = params.payment_method_data || {};
    var never = missingNeverField(group, pmData.billing_details, 'params.payment_method_data');
    if (never) return Promise.reject(never);
    return this._paymentMethodFrom({billing_details: pmData.billing_details,
      metadata: pmData.metadata, paramsOnly: true}, group).then(function (r) {
      if (r.error) return {error: r.error};
      var body = {payment_method_data: r.params};
      ['return_url', 'shipping'].forEach(function (k) { if (params[k]) body[k] = params[k]; });
      var sfu = group._options.setupFutureUsage || group._options.setup_future_usage;
      if (sfu) body.setup_future_usage = sfu;
      return self._request('POST', '/v1/confirmation_tokens', body).then(function (res) {
        return res.error ? {error: res.error} : {confirmationToken: res.data};
      });
    });
  };

  Stripe.prototype.createToken = function (element, data) {
    var self = this;
    if (!element || !element.__stripebench) {
      return Promise.resolve(validationError('unsupported_token_type', 'Pass a card Element.'));
    }
    return cardParams(element._group, element).then(function (r) {
      if (r.error) return {error: r.error};
      var card = Object.assign({number: r.card.number, exp_month: r.card.exp_month,
        exp_year: r.card.exp_year, cvc: r.card.cvc}, data || {});
      if (r.card.postal_code && !card.address_zip) card.address_zip = r.card.postal_code;
      return self._request('POST', '/v1/tokens', {card: card}).then(function (res) {
        return res.error ? {error: res.error} : {token: res.data};
      });
    });
  };

  Stripe.prototype._retrieve = function (secret) {
    var target = intentFromSecret(secret);
    return this._request('GET', target.path + target.id, {client_secret: secret});
  };

  Stripe.prototype.retrievePaymentIntent = function (secret) {
    return this._retrieve(secret).then(function (r) {
      return r.error ? {error: r.error} : {paymentIntent: r.data};
    });
  };
  Stripe.prototype.retrieveSetupIntent = function (secret) {
    return this._retrieve(secret).then(function (r) {
      return r.error ? {error: r.error} : {setupIntent: r.data};
    });
  };

  // Show the 3D Secure challenge in a modal iframe; resolve when the page reports back.
  function challenge(url) {
    return new Promise(function (resolve) {
      var overlay = document.createElement('div');
      overlay.setAttribute('data-stripebench', '3ds-modal');
      overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.45);' +
        'display:flex;align-items:center;justify-content:center;';
      var frame = document.createElement('iframe');
      frame.name = '__stripeJSChallengeFrame';
      frame.title = '3D Secure authentication';
      frame.style.cssText = 'width:min(500px,94vw);height:min(600px,90vh);border:0;border-radius:8px;' +
        'background:#fff;';
      frame.src = url + (url.indexOf('?') < 0 ? '?' : '&') + 'embedded=1';
      function onMessage(ev) {
        var msg = ev.data;
        if (!msg || msg.type !== 'stripebench:3ds-complete' || ev.source !== frame.contentWindow) return;
        window.removeEventListener('message', onMessage);
        if (overlay.parentNode) overlay.parentNode.removeChild(overlay);
        resolve(msg);
      }
      window.addEventListener('message', onMessage);
      overlay.appendChild(frame);
      document.body.appendChild(overlay);
    });
  }

  function actionUrl(intent) {
    var next = intent && intent.next_action;
    if (!next) return null;
    if (next.type === 'use_stripe_sdk' && next.use_stripe_sdk) return next.use_stripe_sdk.stripe_js;
    if (next.type === 'redirect_to_url' && next.redirect_to_url) return next.redirect_to_url.url;
    return null;
  }

  function intentResult(kind, intent) {
    var out = {};
    out[kind === 'setup_intent' ? 'setupIntent' : 'paymentIntent'] = intent;
    var err = kind === 'setup_intent' ? intent.last_setup_error : intent.last_payment_error;
    if (err && intent.status === 'requires_payment_method') {
      var error = Object.assign({}, err);
      error[kind] = intent;
      return {error: error};
    }
    return out;
  }

  // Run a pending next_action (3DS) and return the refreshed intent result.
  Stripe.prototype._handleActions = function (kind, secret, intent) {
    var self = this;
    if (!intent || intent.status !== 'requires_action') return Promise.resolve(intentResult(kind, intent));
    var url = actionUrl(intent);
    if (!url) {
      return Promise.resolve({error: {type: 'invalid_request_error', code: 'unsupported_next_action',
        message: 'This next_action is not supported by the emulator: ' + intent.next_action.type}});
    }
    return challenge(url).then(function () { return self._retrieve(secret); }).then(function (r) {
      if (r.error) return {error: r.error};
      return intentResult(kind, r.data);
    });
  };

  Stripe.prototype._confirm = function (secret, data, opts) {
    // data: {payment_method, return_url, setup_future_usage, receipt_email, ...}
    var self = this;
    var target;
    try { target = intentFromSecret(secret); } catch (e) {
      return Promise.resolve({error: {type: 'invalid_request_error', message: e.message}});
    }
    data = Object.assign({}, data || {});
    var group = opts.elements || null;
    var pmSpec = data.payment_method;
    delete data.payment_method;
    var pmData = data.payment_method_data;
    delete data.payment_method_data;
    if (!pmSpec && group) pmSpec = {billing_details: pmData && pmData.billing_details};
    if (pmSpec && typeof pmSpec === 'object' && pmData && pmData.billing_details) {
      pmSpec.billing_details = Object.assign({}, pmData.billing_details, pmSpec.billing_details || {});
    }
    return this._paymentMethodFrom(pmSpec, group).then(function (pm) {
      if (pm.error) return {error: pm.error};
      var params = Object.assign({client_secret: secret, use_stripe_sdk: true}, data);
      if (pm.id) params.payment_method = pm.id;
      return self._request('POST', target.path + target.id + '/confirm', params).then(function (r) {
        if (r.error) return {error: r.error};
        if (opts.handleActions === false) {
          var out = {};
          out[target.kind === 'setup_intent' ? 'setupIntent' : 'paymentIntent'] = r.data;
          return out;
        }
        return self._handleActions(target.kind, secret, r.data);
      });
    });
  };

  Stripe.prototype.confirmCardPayment = function (secret, data, options) {
    return this._confirm(secret, data, {handleActions: !options || options.handleActions !== false});
  };
  Stripe.prototype.confirmCardSetup = function (secret, data, options) {
    return this._confirm(secret, data, {handleActions: !options || options.handleActions !== false});
  };

  // confirmPayment / confirmSetup: Payment Element flows with return_url redirects.
  Stripe.prototype._confirmWithElements = function (kind, options) {
    var self = this;
    options = options || {};
    var group = options.elements || null;
    var secret = options.clientSecret || (group && group._options.clientSecret);
    var confirmParams = Object.assign({}, options.confirmParams || {});
    var redirect = options.redirect || 'always';
    var method = 'stripe.' + (kind === 'setup_intent' ? 'confirmSetup' : 'confirmPayment') + '()';
    // Misuse is an IntegrationError (a rejected promise), as Stripe.js does it, not a result.
    if (!secret) {
      return Promise.reject(integrationError('Invalid value for ' + method + ': clientSecret ' +
        'should be a client secret of the form ${id}_secret_${secret}. You specified: ' +
        secret + '.'));
    }
    if (redirect === 'always' && !confirmParams.return_url) {
      return Promise.reject(integrationError(method + ': the `confirmParams.return_url` ' +
        'argument is required unless passing `redirect: \'if_required\'`'));
    }
    if (group && !options.paymentMethod && !group.getElement('payment')) {
      return Promise.reject(integrationError('Invalid value for ' + method + ': elements ' +
        'should have a mounted Payment Element or Express Checkout Element.'));
    }
    if (group && !group._options.clientSecret && !group._submitted) {
      return Promise.reject(integrationError('elements.submit() must be called before ' +
        method + '. Call elements.submit() as soon as your customer presses pay, prior to ' +
        'any asynchronous work. Integration guide: ' +
        'https://stripe.com/docs/payments/accept-a-payment-deferred'));
    }
    var data = confirmParams;
    if (options.paymentMethod) data.payment_method = options.paymentMethod;
    if (!data.payment_method) {
      var never = missingNeverField(group, (data.payment_method_data || {}).billing_details,
                                    'confirmParams.payment_method_data');
      if (never) return Promise.reject(never);
    }
    return this._confirm(secret, data, {elements: group, handleActions: true}).then(function (res) {
      if (res.error) return res;
      var intent = res.paymentIntent || res.setupIntent;
      if (redirect === 'if_required' || !confirmParams.return_url) return res;
      var key = kind === 'setup_intent' ? 'setup_intent' : 'payment_intent';
      var url = new URL(confirmParams.return_url, location.href);
      url.searchParams.set(key, intent.id);
      url.searchParams.set(key + '_client_secret', intent.client_secret);
      url.searchParams.set('redirect_status', intent.status === 'succeeded' ||
        intent.status === 'processing' || intent.status === 'requires_capture' ? 'succeeded' : 'failed');
      window.location.assign(url.toString());
      return new Promise(function () {});  // the page is going away
    });
  };

  Stripe.prototype.confirmPayment = function (options) {
    return this._confirmWithElements('payment_intent', options);
  };
  Stripe.prototype.confirmSetup = function (options) {
    return this._confirmWithElements('setup_intent', options);
  };

  Stripe.prototype.handleNextAction = function (options) {
    var secret = options && options.clientSecret;
    var self = this;
    var target;
    try { target = intentFromSecret(secret); } catch (e) {
      return Promise.resolve({error: {type: 'invalid_request_error', message: e.message}});
    }
    return this._retrieve(secret).then(function (r) {
      if (r.error) return {error: r.error};
      return self._handleActions(target.kind, secret, r.data);
    });
  };
  Stripe.prototype.handleCardAction = function (secret) {
    return this.handleNextAction({clientSecret: secret});
  };
  /*__PARTS__*/

  window.Stripe = Stripe;
})();
