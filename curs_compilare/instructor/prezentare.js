/* Prezentarea diapozitivelor cursului, fără nimic din rețea (curs_compilare/instructor/diapozitive.py).
 *
 * Fișierul HTML are structura scrisă de nbconvert: în `.reveal .slides`, câte o secțiune
 * <section> pentru fiecare diapozitiv orizontal (un titlu „## ”), iar în ea câte o secțiune pentru
 * fiecare diapozitiv vertical (un „### ”, o celulă de cod). Scriptul arată câte un diapozitiv
 * vertical deodată:
 *   săgeată dreapta / stânga  secțiunea următoare / precedentă (de la primul ei diapozitiv)
 *   săgeată jos / sus         diapozitivul următor / precedent din secțiune
 *   spațiu, PageDown, N       următorul, în ordine (trece și la secțiunea următoare)
 *   Shift+spațiu, PageUp, P   precedentul, în ordine
 *   Home / End                primul / ultimul
 *   Esc sau O                 toate diapozitivele deodată (clic pe unul ca să-l prezinți)
 *   F                         tot ecranul
 * Adresa paginii ține diapozitivul curent (#/secțiune/diapozitiv), ca un link să deschidă acolo.
 * Un diapozitiv mai înalt decât ecranul se derulează (rotița, bara de derulare) în spațiul lui,
 * deasupra benzii cu butoane; cât timp mai are ceva dedesubt, banda spune „continuă dedesubt”.
 * Fără JavaScript, pagina rămâne una lungă, cu toate diapozitivele unul sub altul. */
(function () {
  "use strict";

  var slides = document.querySelector(".reveal .slides");
  if (!slides) {
    return;
  }

  function copiiSectiuni(element) {
    return Array.prototype.filter.call(element.children, function (copil) {
      return copil.tagName === "SECTION";
    });
  }

  // Lista diapozitivelor, în ordinea prezentării: {el, h, v, sectiune}.
  var diapozitive = [];
  var inceputSectiune = [];
  copiiSectiuni(slides).forEach(function (sectiune, h) {
    var verticale = copiiSectiuni(sectiune);
    if (verticale.length === 0) {
      verticale = [sectiune];
    }
    inceputSectiune.push(diapozitive.length);
    verticale.forEach(function (el, v) {
      el.classList.add("diapozitiv");
      diapozitive.push({ el: el, h: h, v: v, sectiune: sectiune, ultim: v === verticale.length - 1 });
    });
  });
  if (diapozitive.length === 0) {
    return;
  }
  document.documentElement.classList.add("cu-prezentare");

  // Bara de jos: butoanele și numărul diapozitivului; dunga de progres.
  var bara = document.createElement("nav");
  bara.className = "bara-prezentare";
  bara.setAttribute("aria-label", "Navigarea prin diapozitive");
  var butoane = {};
  [["inapoi", "◀", "Secțiunea precedentă (săgeată stânga)"],
   ["sus", "▲", "Diapozitivul precedent (săgeată sus)"],
   ["jos", "▼", "Diapozitivul următor (săgeată jos)"],
   ["inainte", "▶", "Secțiunea următoare (săgeată dreapta)"]].forEach(function (b) {
    var buton = document.createElement("button");
    buton.type = "button";
    buton.className = "buton-" + b[0];
    buton.textContent = b[1];
    buton.title = b[2];
    bara.appendChild(buton);
    butoane[b[0]] = buton;
  });
  var continuare = document.createElement("span");
  continuare.className = "continuare";
  continuare.textContent = "⇣ continuă dedesubt: derulează";
  bara.insertBefore(continuare, bara.firstChild);
  var numar = document.createElement("span");
  numar.className = "numar-diapozitiv";
  bara.appendChild(numar);
  var progres = document.createElement("div");
  progres.className = "progres-prezentare";
  document.body.appendChild(progres);
  document.body.appendChild(bara);

  var curent = -1;

  // „Continuă dedesubt”, cât timp diapozitivul curent are conținut sub marginea de jos a spațiului lui.
  function actualizeazaContinuarea() {
    var el = curent >= 0 ? diapozitive[curent].el : null;
    var maiEste = !!el && el.scrollHeight - el.clientHeight - el.scrollTop > 2;
    document.documentElement.classList.toggle("diapozitiv-cu-continuare", maiEste);
  }

  function arata(i) {
    i = Math.max(0, Math.min(diapozitive.length - 1, i));
    if (curent >= 0) {
      diapozitive[curent].el.classList.remove("prezent");
      diapozitive[curent].sectiune.classList.remove("sectiune-prezenta");
    }
    curent = i;
    var d = diapozitive[i];
    d.sectiune.classList.add("sectiune-prezenta");
    d.el.classList.add("prezent");
    d.el.scrollTop = 0;
    numar.textContent = (i + 1) + " / " + diapozitive.length;
    progres.style.width = (100 * (i + 1) / diapozitive.length) + "%";
    butoane.inapoi.disabled = d.h === 0;
    butoane.inainte.disabled = d.h === inceputSectiune.length - 1;
    butoane.sus.disabled = d.v === 0;
    butoane.jos.disabled = d.ultim;
    var ancora = "#/" + d.h + "/" + d.v;
    if (window.location.hash !== ancora) {
      window.history.replaceState(null, "", ancora);
    }
    actualizeazaContinuarea();
  }

  function dinAdresa() {
    var potrivire = /^#\/(\d+)(?:\/(\d+))?$/.exec(window.location.hash);
    if (!potrivire) {
      return 0;
    }
    var h = Math.min(parseInt(potrivire[1], 10), inceputSectiune.length - 1);
    var i = inceputSectiune[h] + parseInt(potrivire[2] || "0", 10);
    var sfarsit = h + 1 < inceputSectiune.length ? inceputSectiune[h + 1] - 1 : diapozitive.length - 1;
    return Math.min(i, sfarsit);
  }

  function sectiunea(delta) {
    var h = diapozitive[curent].h + delta;
    if (h >= 0 && h < inceputSectiune.length) {
      arata(inceputSectiune[h]);
    }
  }

  function vertical(delta) {
    var d = diapozitive[curent];
    if ((delta < 0 && d.v > 0) || (delta > 0 && !d.ultim)) {
      arata(curent + delta);
    }
  }

  function toateDeodata(da) {
    document.documentElement.classList.toggle("toate-diapozitivele", da);
    if (!da) {
      arata(curent);
    } else {
      diapozitive[curent].el.scrollIntoView({ block: "center" });
    }
  }

  butoane.inapoi.addEventListener("click", function () { sectiunea(-1); });
  butoane.inainte.addEventListener("click", function () { sectiunea(1); });
  butoane.sus.addEventListener("click", function () { vertical(-1); });
  butoane.jos.addEventListener("click", function () { vertical(1); });

  window.addEventListener("resize", actualizeazaContinuarea);
  // Imaginile se încarcă după ce scriptul a măsurat diapozitivul: măsoară din nou.
  window.addEventListener("load", actualizeazaContinuarea);

  diapozitive.forEach(function (d, i) {
    d.el.addEventListener("scroll", actualizeazaContinuarea);
    d.el.addEventListener("click", function () {
      if (document.documentElement.classList.contains("toate-diapozitivele")) {
        arata(i);
        toateDeodata(false);
      }
    });
  });

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    var tinta = e.target;
    if (tinta && (tinta.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(tinta.tagName))) {
      return;
    }
    var toate = document.documentElement.classList.contains("toate-diapozitivele");
    var tasta = e.key;
    if (tasta === "Escape" || tasta === "o" || tasta === "O") {
      toateDeodata(!toate);
    } else if (toate) {
      return;
    } else if (tasta === "ArrowRight") {
      sectiunea(1);
    } else if (tasta === "ArrowLeft") {
      sectiunea(-1);
    } else if (tasta === "ArrowDown") {
      vertical(1);
    } else if (tasta === "ArrowUp") {
      vertical(-1);
    } else if ((tasta === " " && e.shiftKey) || tasta === "PageUp" || tasta === "p" || tasta === "P") {
      arata(curent - 1);
    } else if (tasta === " " || tasta === "PageDown" || tasta === "n" || tasta === "N") {
      arata(curent + 1);
    } else if (tasta === "Home") {
      arata(0);
    } else if (tasta === "End") {
      arata(diapozitive.length - 1);
    } else if ((tasta === "f" || tasta === "F") && document.documentElement.requestFullscreen) {
      if (document.fullscreenElement) {
        document.exitFullscreen();
      } else {
        document.documentElement.requestFullscreen();
      }
    } else {
      return;
    }
    e.preventDefault();
  });

  window.addEventListener("hashchange", function () {
    var i = dinAdresa();
    if (i !== curent) {
      arata(i);
    }
  });

  // Pentru teste și pentru consolă: câte diapozitive sunt și care e acum.
  window.prezentare = {
    numar: diapozitive.length,
    curent: function () { return curent; },
    arata: arata
  };

  arata(dinAdresa());
})();
