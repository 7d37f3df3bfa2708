// A platform dashboard page: the Connect Payments component (or another one named in
// ?component=) through @stripe/react-connect-js, as a platform's front end writes it.
import React, {useState} from "react";
import {createRoot} from "react-dom/client";
import {loadConnectAndInitialize} from "@stripe/connect-js";
import {
  ConnectComponentsProvider, ConnectPayments, ConnectPayouts, ConnectAccountOnboarding,
  ConnectNotificationBanner, ConnectPaymentDetails,
} from "@stripe/react-connect-js";

const query = new URLSearchParams(window.location.search);
let secretUsed = false;
const connectInstance = loadConnectAndInitialize({
  publishableKey: query.get("pk"),
  fetchClientSecret: async () => {
    if (secretUsed) throw new Error("the test hands out one session only");
    secretUsed = true;
    return query.get("secret");
  },
  appearance: {variables: {colorPrimary: "#0a7d5a"}},
});

function Dashboard() {
  const [status, setStatus] = useState("");
  const which = query.get("component") || "payments";
  let component;
  if (which === "onboarding") {
    component = <ConnectAccountOnboarding onExit={() => setStatus("onboarding exited")} />;
  } else if (which === "payouts") {
    component = <ConnectPayouts />;
  } else if (which === "banner") {
    component = <ConnectNotificationBanner
      onNotificationsChange={(n) => setStatus(`notifications: ${n.total}`)} />;
  } else if (which === "details") {
    component = <ConnectPaymentDetails payment={query.get("payment")}
      onClose={() => setStatus("details closed")} />;
  } else {
    component = <ConnectPayments />;
  }
  return (
    <ConnectComponentsProvider connectInstance={connectInstance}>
      <p role="status">{status}</p>
      {component}
    </ConnectComponentsProvider>
  );
}

createRoot(document.getElementById("root")).render(<Dashboard />);
