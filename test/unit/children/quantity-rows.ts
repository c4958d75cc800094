// Quantities and the form the API server stores them in: the unit test checks
// canonicalQuantity against these, and the Kubernetes suite checks them against
// a real kube-apiserver (test/k8s/quantity.test.ts).
export const QUANTITY_ROWS: [given: string, stored: string][] = [
  ["1000m", "1"],
  ["1024Mi", "1Gi"],
  ["1.5Gi", "1536Mi"],
  ["0.5Gi", "512Mi"],
  ["1536", "1536"],
  ["1.5Ki", "1536"],
  ["512Mi", "512Mi"],
  ["100m", "100m"],
  ["0.5", "500m"],
  ["1.5", "1500m"],
  ["1000", "1k"],
  ["1500000", "1500k"],
  ["100M", "100M"],
  ["1e3", "1e3"],
  ["0.0001", "1m"], // rounded up to the milli
  ["2", "2"],
  ["0", "0"],
  ["20Gi", "20Gi"],
  ["1Ki", "1Ki"],
  ["500Ki", "500Ki"],
];
