  // ------------------------------------------------------------------ Embedded Checkout
  // (Inserted into stripe.js's closure: Stripe, hostUrl, integrationError are in scope.)
  //
  // `stripe.createEmbeddedCheckoutPage()` (dahlia on) / `stripe.initEmbeddedCheckout()`
  // (up to clover) resolve the client secret first and ask the emulator whether this
  // publishable key may open that session (`GET /c/embedded/{cs}/init`): a key of another
  // account, or one that does not exist, rejects the promise as Stripe.js does.
  // The page itself is served by the Checkout module at
  //   checkout.stripe.com /c/embedded/{cs_test_...}?client_secret=...&key=...&parent_origin=...
  // and reports back with window.parent.postMessage:
  //   {type: 'stripebench:checkout-complete', session: 'cs_test_...', return_url: '...'}
  //   {type: 'stripebench:checkout-resize', height: 640}
  //   {type: 'stripebench:checkout-redirect', url: '...'}   (navigate the top page)
  // Stripe allows one Embedded Checkout per page until destroy() releases it.
  var activeEmbedded = null;

  function EmbeddedCheckout(stripe, options, secret) {
    this._stripe = stripe;
    this._options = options;
    this._secret = secret;
    this._frame = null;
    this._onMessage = this._onMessage.bind(this);
  }

  EmbeddedCheckout.prototype._query = function () {
    var stripe = this._stripe;
    var q = '?client_secret=' + encodeURIComponent(this._secret) +
      '&key=' + encodeURIComponent(stripe._key);
    if (stripe._account) q += '&stripe_account=' + encodeURIComponent(stripe._account);
    return q;
  };

  EmbeddedCheckout.prototype._session = function () {
    return String(this._secret).split('_secret_')[0];
  };

  EmbeddedCheckout.prototype.mount = function (target) {
    if (this._destroyed) {
      throw integrationError('This Embedded Checkout instance has been destroyed. Create a ' +
        'new one to mount Checkout again.');
    }
    var node = typeof target === 'string' ? document.querySelector(target) : target;
    if (!node) {
      throw integrationError('The selector you specified (' + target + ') applies to no DOM ' +
        'elements that are currently on the page.');
    }
    if (this._frame) {
      throw integrationError('Embedded Checkout is already mounted. Call unmount() first.');
    }
    var frame = document.createElement('iframe');
    frame.name = 'embedded-checkout';
    frame.title = 'Embedded Checkout';
    frame.setAttribute('allow', 'payment *; publickey-credentials-get *');
    frame.setAttribute('data-stripebench', 'embedded-checkout');
    frame.style.cssText = 'border:none;width:100%;min-height:640px;display:block;';
    frame.src = hostUrl('checkout.stripe.com', '/c/embedded/' +
      encodeURIComponent(this._session())) + this._query() + '&parent_origin=' +
      encodeURIComponent(location.origin);
    window.addEventListener('message', this._onMessage);
    node.appendChild(frame);
    this._container = node;
    this._frame = frame;
  };

  EmbeddedCheckout.prototype._onMessage = function (ev) {
    var msg = ev.data;
    if (!msg || !this._frame || ev.source !== this._frame.contentWindow) return;
    if (msg.type === 'stripebench:checkout-resize' && msg.height) {
      this._frame.style.height = msg.height + 'px';
    } else if (msg.type === 'stripebench:checkout-complete') {
      if (typeof this._options.onComplete === 'function') this._options.onComplete();
      else if (msg.return_url) window.location.assign(msg.return_url);
    } else if (msg.type === 'stripebench:checkout-redirect' && msg.url) {
      window.location.assign(msg.url);
    }
  };

  EmbeddedCheckout.prototype.unmount = function () {
    window.removeEventListener('message', this._onMessage);
    if (this._frame && this._frame.parentNode) this._frame.parentNode.removeChild(this._frame);
    this._frame = null;
  };

  EmbeddedCheckout.prototype.destroy = function () {
    this.unmount();
    this._destroyed = true;
    if (activeEmbedded === this) activeEmbedded = null;
  };

  function createEmbeddedCheckout(stripe, method, options) {
    options = options || {};
    if (activeEmbedded) {
      throw integrationError('stripe.' + method + '(): only one Embedded Checkout can exist ' +
        'on a page at a time. Call destroy() on the existing one before creating another.');
    }
    var hasSecret = typeof options.clientSecret === 'string';
    var hasFetch = typeof options.fetchClientSecret === 'function';
    if (hasSecret === hasFetch) {
      throw integrationError('stripe.' + method + '(): pass exactly one of ' +
        '`fetchClientSecret` (a function returning a Promise of the Checkout Session\'s ' +
        'client_secret) or `clientSecret`.');
    }
    var secret = hasSecret ? Promise.resolve(options.clientSecret)
      : Promise.resolve(options.fetchClientSecret());
    return secret.then(function (value) {
      if (typeof value !== 'string' || value.indexOf('cs_') !== 0 ||
          value.indexOf('_secret_') < 0) {
        throw integrationError('stripe.' + method + '(): the client secret should be a ' +
          'Checkout Session client_secret (cs_..._secret_...). You specified: ' + value + '.');
      }
      var checkout = new EmbeddedCheckout(stripe, options, value);
      var url = hostUrl('checkout.stripe.com', '/c/embedded/' +
        encodeURIComponent(checkout._session()) + '/init') + checkout._query();
      return fetch(url).then(function (resp) {
        return resp.json().then(function (body) {
          if (!resp.ok) {
            var message = (body && body.error && body.error.message) || 'Request failed';
            var err = integrationError(message);
            err.type = (body && body.error && body.error.type) || 'invalid_request_error';
            throw err;
          }
          if (activeEmbedded) {
            throw integrationError('stripe.' + method + '(): only one Embedded Checkout can ' +
              'exist on a page at a time. Call destroy() on the existing one first.');
          }
          activeEmbedded = checkout;
          return checkout;
        });
      });
    });
  }
