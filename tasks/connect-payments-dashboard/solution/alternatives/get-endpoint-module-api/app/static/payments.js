// The Connect embedded Payments component for the signed-in groomer.
import { loadConnectAndInitialize } from "./vendor/connect-js/connect.esm.js";

const host = document.getElementById("connect-payments");
const instance = loadConnectAndInitialize({
  publishableKey: host.dataset.publishableKey,
  fetchClientSecret: async () => {
    const answer = await fetch(host.dataset.sessionUrl, { credentials: "same-origin" });
    return (await answer.json()).clientSecret;
  },
});
host.append(instance.create("payments"));
