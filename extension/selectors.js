// Where the search engines put their results. The markup of result pages
// changes: this file is the one place to follow it. Each engine names the
// pages it runs on, the element of one organic result, and where in it the
// title, the link and a price are. globalThis: content scripts share one
// isolated world, and cannot import modules.
globalThis.SVC_ENGINES = [
  {
    site: 'google',
    host: /^(www\.)?google\.[a-z]{2,3}(\.[a-z]{2})?$/,
    path: /^\/search$/,
    result: '#search div.g, #rso div.MjjYud > div:not(.g)[data-hveid]',
    title: 'h3',
    link: 'a[href]:has(h3), a[href]',
    price: '[aria-label*="price" i], .LI0TWe, .YrbPuc',
    // the badge goes after the title's link
    anchor: 'a[href]:has(h3)',
  },
  {
    site: 'bing',
    host: /^(www\.)?bing\.com$/,
    path: /^\/search$/,
    result: '#b_results > li.b_algo',
    title: 'h2',
    link: 'h2 a[href]',
    price: '.b_price, .b_focusTextSmall',
    anchor: 'h2',
  },
];
