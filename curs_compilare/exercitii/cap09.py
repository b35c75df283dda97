"""Verificările exercițiilor din capitolul 09 — modelul compilat iese din notebook: `torch.export`
și AOTInductor.

- exercițiul 1: o ramificare după date (`if h.sum() > 0`), rescrisă ca exportul s-o păstreze în
  graf (`torch.cond` sau `torch.where`), cu parametrii modelului primit;
- exercițiul 2: formele dinamice ale unui `ReteaTransformer`: un singur export pentru orice lot de
  la 1 la 64 și orice lungime de la 2 la lungimea maximă, iar lotul 65 și lungimea de după maxim
  refuzate de programul exportat, la intrare;
- exercițiul 3: un pachet AOTInductor (`.pt2`) cu lotul dinamic, încărcat într-un proces Python nou.

Fiecare verificare alege la întâmplare mărimile modelului, intrările și loturile (altele la fiecare
rulare; `CURS_SEMINTA=…` în mediu le fixează) și verifică mecanismul, nu doar rezultatul: exportul
chiar reușește cu lotul dinamic, programul exportat rulează formele cerute și le refuză pe celelalte,
pachetul chiar se încarcă fără notebook. Codul tău se apelează numai prin `apeleaza` (din `baza`), cu
o limită de timp; o greșeală devine o explicație în română, nu un traceback.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import torch
import torch.nn as nn

from ..capitole import cap09_export as export09
from ..cifre import cu_substantiv, format_numar, format_octeti, format_timp
from ..modele import ConfiguratieTransformer, ReteaTransformer
from .baza import (
    GresealaCursant,
    MasinaNepotrivita,
    Rezultat,
    apeleaza,
    compara_tensori,
    cu_originalul,
    explica_exceptie,
    fara_jurnale_torch,
    generator_aleator,
    limita_timp,
    linia_cursantului,
    traduce_exceptie,
    verificare,
)

__all__ = [
    "ModelCuRamura",
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "LOT_MAXIM",
    "LOT_MINIM_3",
    "LOT_MAXIM_3",
    "LIMITA_IMPACHETARE_S",
    "LIMITA_PROCES_NOU_S",
]

#: Cel mai mare lot pe care trebuie să-l primească programul exportat (exercițiile 1 și 2).
LOT_MAXIM = 64
#: Loturile pe care trebuie să le primească pachetul din exercițiul 3: de la `LOT_MINIM_3` la `LOT_MAXIM_3`,
#: cu amândouă marginile.
LOT_MINIM_3 = 2
LOT_MAXIM_3 = 32
#: Cât are voie să dureze exportul (sau un apel scurt al codului tău).
LIMITA_EXPORT_S = 120.0
#: Cât are voie să dureze `impacheteaza` (exportul și compilarea AOTInductor: pe un procesor cu două
#: nuclee, în jur de 15 s pentru modelul mic al exercițiului).
LIMITA_IMPACHETARE_S = 300.0
#: Cât are voie să dureze procesul nou care încarcă pachetul și îl rulează (pornirea lui Python, importul
#: lui torch, încărcarea pachetului, câteva apeluri).
LIMITA_PROCES_NOU_S = 120.0


# ---------------------------------------------------------------------------------------------
# Unelte comune
# ---------------------------------------------------------------------------------------------


def _cere_functie(functie, semnatura: str) -> None:
    if functie is None:
        raise GresealaCursant(f"Ai dat None: trebuia funcția `{semnatura}`.")
    if isinstance(functie, nn.Module):
        raise GresealaCursant(f"Ai dat un modul ({type(functie).__name__}), nu funcția `{semnatura}`: dă numele "
                              "funcției, fără paranteze și fără s-o chemi.")
    if not callable(functie):
        raise GresealaCursant(f"Trebuia funcția `{semnatura}`, dar am primit {type(functie).__name__}. "
                              "Dă numele funcției, fără paranteze.")


def _cu_seminta(rng):
    """Un `torch.Generator` cu o sămânță luată din `rng`."""
    return torch.Generator().manual_seed(rng.randrange(2**31))


def _ruleaza_programul(modul, x: torch.Tensor):
    """Rulează programul exportat (`ExportedProgram.module()`) pe `x`: întoarce (ieșirea, None) sau
    (None, excepția). Programul nu conține cod Python al cursantului, doar operațiile grafului."""
    try:
        with fara_jurnale_torch(), limita_timp(LIMITA_EXPORT_S, "programul exportat"), torch.no_grad():
            return modul(x), None
    except GresealaCursant:
        raise
    except Exception as eroare:  # garda unei forme refuzate sau o eroare din graf
        return None, eroare


#: Textele după care recunosc garda (*guard*) pe care programul exportat o verifică la intrare:
#: „Guard failed: x.size()[0] <= 64” (2.13, 2.14), „Expected input at *args[0].shape[0] to be <= 64,
#: but got 65” (versiunile de dinainte).
_GARDA = re.compile(r"Guard failed|Expected input at|to be (?:equal to|<=|>=)")
_GARDA_DIMENSIUNE = (
    re.compile(r"size\(\)\[(\d+)\]\s*(==|<=|>=)\s*(\d+)"),
    re.compile(r"shape\[(\d+)\] to be (equal to|<=|>=) (\d+)"),
)


def _e_garda(eroare: BaseException) -> bool:
    return bool(_GARDA.search(str(eroare)))


def _textul_garzii(eroare: BaseException) -> str:
    text = " ".join(str(eroare).split())
    potrivire = re.search(r"Guard failed:\s*(.+?)(?:\s+\(|$)", text)
    return (potrivire.group(1) if potrivire else text)[:160].replace("`", "'")


def _garda_dimensiunii(eroare: BaseException) -> tuple[int, str, int] | None:
    """(dimensiunea, relația „==”, „<=” sau „>=”, valoarea) din garda căzută, sau None."""
    text = str(eroare)
    for tipar in _GARDA_DIMENSIUNE:
        potrivire = tipar.search(text)
        if potrivire:
            relatie = "==" if potrivire.group(2) == "equal to" else potrivire.group(2)
            return int(potrivire.group(1)), relatie, int(potrivire.group(3))
    return None


def _mesaj_refuz_export(eroare: BaseException, ce: str) -> str | None:
    """Un refuz al lui `torch.export` pe categoriile capitolului (`cap09_export.categorie_refuz`),
    cu linia din codul tău unde s-a oprit exportul; None dacă refuzul nu e într-o categorie cunoscută."""
    categorie, explicatie = export09.categorie_refuz(eroare)
    if categorie == "altceva":
        return None
    linie = linia_cursantului(eroare)
    unde = f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else ""
    return (f"Exportul {ce} a fost refuzat{unde}: {categorie}. "
            f"{explicatie[0].upper()}{explicatie[1:]}{cu_originalul(traduce_exceptie(eroare))}")


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: o ramificare după date, păstrată în graf
# ---------------------------------------------------------------------------------------------


class ModelCuRamura(nn.Module):
    """Un strat liniar urmat de o ramificare după valoarea unui tensor:

        h = liniar(x)
        dacă h.sum() > 0 (pe tot lotul):  ieșire = relu(h) · 2
        altfel:                           ieșire = tanh(h) − 1

    În modul eager merge. `torch.export` îl refuză: exportul urmărește codul cu tensori fără valori,
    deci nu știe pe ce ramură să meargă (nestrict: `GuardOnDataDependentSymNode`; strict:
    „Data-dependent branching”). `torch.compile` ar face aici o întrerupere a grafului; exportul
    cere graful întreg, așa că o întrerupere e o eroare.

    Exercițiul 1: scrie `rescrie(model)`, care întoarce un `nn.Module` ce calculează aceeași
    funcție cu alegerea ramurii în graf (`torch.cond` sau `torch.where`), folosind chiar parametrii
    lui `model` (nu o copie). Verificarea: `verificari.exercitiul_1(rescrie)`."""

    def __init__(self, intrare: int, iesire: int):
        super().__init__()
        self.liniar = nn.Linear(intrare, iesire)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.liniar(x)
        if h.sum() > 0:
            return torch.relu(h) * 2
        return torch.tanh(h) - 1


def _intrare_cu_semn(model: ModelCuRamura, lot: int, semn: int, generator) -> torch.Tensor:
    """O intrare de `lot` rânduri la care `h.sum()` are semnul `semn`, departe de 0 (|h.sum()| ≥ 0,2 · lot,
    ca o rotunjire diferită a sumei să nu schimbe ramura), iar sumele rândurilor au semne
    amestecate (ca o condiție pusă pe fiecare rând să nu dea, din întâmplare, același rezultat). Suma
    rândului i e `v·x_i + Σb`, cu `v = Wᵀ·1`: fiecare rând se deplasează de-a lungul lui `v` până la
    suma lui țintă."""
    with torch.no_grad():
        w, b = model.liniar.weight.detach(), model.liniar.bias.detach()
        v = w.sum(dim=0)
        x = torch.randn(lot, w.shape[1], generator=generator)
        sume = x @ v + b.sum()
        zgomot = 3 * torch.randn(lot, generator=generator) if lot > 1 else torch.zeros(1)
        tinte = semn * (0.2 + float(torch.rand((), generator=generator))) + zgomot - zgomot.mean()
        x = x + ((tinte - sume) / float(v @ v))[:, None] * v
    return x


def _parametri_comuni(a: nn.Module, b: nn.Module) -> int:
    ai_lui_b = {id(p) for p in b.parameters()}
    return sum(id(p) in ai_lui_b for p in a.parameters())


def _mesaj_ramura_1(raspuns, model, obtinut, asteptat, x, semn, lot, model_primit=None) -> str:
    """De ce nu se potrivesc valorile pe intrările cu semnul `semn`: o ramură înghețată, alte
    greutăți sau altceva (atunci, mesajul lui `compara_tensori`). `model` e copia cu greutățile
    originale (ramurile se calculează cu ea), `model_primit` e modelul dat funcției tale (cu el se
    numără parametrii comuni)."""
    ramura_buna, ramura_cealalta = ("if", "else") if semn > 0 else ("else", "if")
    conditie = "h.sum() > 0" if semn > 0 else "h.sum() ≤ 0"
    cod = {"if": "torch.relu(h) * 2", "else": "torch.tanh(h) - 1"}

    def la_fel(a, b):
        return (isinstance(a, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype and a.device == b.device
                and torch.allclose(a, b, rtol=1e-4, atol=1e-5))

    with torch.no_grad():
        h = model.liniar(x)
        ramuri = {"if": torch.relu(h) * 2, "else": torch.tanh(h) - 1}
        pe_element = torch.where(h > 0, ramuri["if"], ramuri["else"])
        pe_rand = torch.where(h.sum(dim=-1, keepdim=True) > 0, ramuri["if"], ramuri["else"])
    for varianta, ce in ((pe_element, "fiecare element (`h > 0`)"), (pe_rand, "fiecare rând (`h.sum(dim=-1) > 0`)")):
        if la_fel(obtinut, varianta) and not la_fel(varianta, asteptat):
            return (
                f"Programul exportat alege ramura pentru {ce}, la lotul {lot}; modelul o alege o singură dată, pentru "
                "tot lotul, după `h.sum() > 0` (suma tuturor elementelor lui `h`). Condiția lui `torch.cond` sau a lui "
                "`torch.where` trebuie să fie exact aceasta."
            )
    if la_fel(obtinut, ramuri[ramura_cealalta]):
        return (
            f"Pe intrările la care `{conditie}` (ramura `{ramura_buna}`, `{cod[ramura_buna]}`), programul exportat "
            f"dă ramura `{ramura_cealalta}` (`{cod[ramura_cealalta]}`), la lotul {lot}: ai păstrat o singură ramură, "
            "înghețată la exemplul cu care ai exportat. Exportul trebuie să păstreze în graf amândouă ramurile și "
            "alegerea dintre ele: `torch.cond(h.sum() > 0, ramura_if, ramura_else, (h,))` sau `torch.where`."
        )
    try:
        compara_tensori(obtinut, asteptat, f"programul exportat, intrările cu `{conditie}`, lotul {lot}",
                        rtol=1e-4, atol=1e-5)
    except GresealaCursant as greseala:
        mesaj = str(greseala)
    else:  # pragma: no cover - apelată doar când valorile diferă
        mesaj = "Valorile diferă."
    la_fel_de_forma = (isinstance(obtinut, torch.Tensor) and obtinut.shape == asteptat.shape
                       and obtinut.dtype == asteptat.dtype)
    if la_fel_de_forma and _parametri_comuni(raspuns, model_primit if model_primit is not None else model) == 0:
        mesaj += (" Modulul tău nu folosește niciun parametru al modelului primit: are alte greutăți. Folosește "
                  "chiar stratul `model.liniar` (de exemplu, ține-l ca atribut: `self.liniar = model.liniar`).")
    return mesaj


def exercitiul_1(rescrie) -> Rezultat:
    """Verifică `rescrie(model)`: primește un `ModelCuRamura` (lățimi alese la întâmplare) și
    întoarce un `nn.Module`. Verificarea îl exportă o singură dată (`strict=False`, lotul dinamic:
    `Dim("lot", max=64)`), rulează programul exportat pe loturi alese la întâmplare între 1 și 64,
    cu intrări care duc pe ambele ramuri, și compară cu modelul original în modul eager; apoi
    schimbă greutățile modelului primit și verifică că modulul tău le vede (parametrii comuni, nu o
    copie)."""

    def calcul_referinta(model: ModelCuRamura, x: torch.Tensor) -> torch.Tensor:
        # Ce calculează `ModelCuRamura`, cu ramura aleasă în graf. E definită aici, nu în modul: codul
        # tău n-o poate chema (`verificari.…` nu o are).
        with torch.no_grad():
            h = model.liniar(x)
            return torch.where(h.sum() > 0, torch.relu(h) * 2, torch.tanh(h) - 1)

    def corp():
        _cere_functie(rescrie, "rescrie(model)")
        rng = generator_aleator()
        intrare, iesire = rng.randint(3, 24), rng.randint(2, 16)
        with torch.random.fork_rng():
            torch.manual_seed(rng.randrange(2**31))
            model = ModelCuRamura(intrare, iesire).eval()
        referinta = copy.deepcopy(model)
        generator = _cu_seminta(rng)

        raspuns = apeleaza(rescrie, model, limita_s=LIMITA_EXPORT_S, ce="funcția ta `rescrie`")
        if raspuns is None:
            raise GresealaCursant("`rescrie` a întors None: ai uitat `return`? Trebuia să întorci un `nn.Module`.")
        if not isinstance(raspuns, nn.Module):
            raise GresealaCursant(
                f"`rescrie` a întors {type(raspuns).__name__}, nu un `nn.Module`: `torch.export.export` exportă un "
                "modul. Scrie o clasă care moștenește `nn.Module`, cu calculul în `forward`, și întoarce un obiect al ei."
            )

        # 1. Un singur export, cu lotul dinamic.
        lot_exemplu = rng.randint(2, 8)
        exemplu = _intrare_cu_semn(referinta, lot_exemplu, rng.choice((1, -1)), generator)
        lot = torch.export.Dim("lot", max=LOT_MAXIM)
        try:
            with fara_jurnale_torch():
                program = apeleaza(torch.export.export, raspuns, (exemplu.clone(),), strict=False,
                                   dynamic_shapes=({0: lot},), limita_s=LIMITA_EXPORT_S,
                                   ce="exportul modulului tău")
        except GresealaCursant as greseala:
            eroare = greseala.exceptie
            if eroare is None:
                raise
            mesaj = _mesaj_refuz_export(eroare, "modulului tău")
            if mesaj is None and _marime_simbolica(eroare):
                linie = linia_cursantului(eroare)
                unde = f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else ""
                raise GresealaCursant(
                    f"Exportul modulului tău s-a oprit{unde}: l-am exportat cu lotul dinamic (exemplul avea lotul "
                    f"{lot_exemplu}), deci exportul urmărește lotul ca pe o mărime simbolică (`s…`), nu ca pe un număr, "
                    f"ca programul să meargă pentru orice lot de la 1 la {LOT_MAXIM}. Codul tău presupune o mărime "
                    "scrisă de mână (`reshape(4, -1)`, `torch.zeros(4, …)`), care se potrivește doar cu unele loturi. "
                    "Ia mărimile din tensor (`x.shape[0]`) sau folosește `-1`."
                    f"{cu_originalul(traduce_exceptie(eroare))}"
                ) from None
            if mesaj is None:
                raise
            categorie, _ = export09.categorie_refuz(eroare)
            if categorie == "ramificare după date" and raspuns is model:
                mesaj = ("Ai întors chiar modelul primit, cu `if`-ul lui. " + mesaj)
            elif categorie == "ramificare după date" and _din_modelul_original(eroare):
                mesaj = ("Modulul tău cheamă modelul original (`ModelCuRamura.forward`), iar exportul s-a oprit la "
                         "`if h.sum() > 0` din el. Rescrie calculul în modulul tău, nu-l delega modelului. " + mesaj)
            elif categorie == "dimensiune fixată de cod":
                constanta = re.search(r"specialized it to be a constant \((\d+)\)", str(eroare))
                la_cat = f" la {constanta.group(1)}" if constanta else ""
                mesaj = (f"Am exportat modulul tău cu lotul dinamic (exemplul avea lotul {lot_exemplu}), iar codul tău "
                         f"fixează lotul{la_cat}: ar merge doar pentru o singură mărime a lotului. Nu scrie mărimi de mână "
                         "(`reshape(4, -1)`, `torch.zeros(4, …)`); ia-le din tensor (`x.shape[0]`) sau folosește "
                         "`-1`. " + mesaj)
            raise GresealaCursant(mesaj) from None
        modul_exportat = program.module()

        # 2. Ambele ramuri, pe loturi necunoscute dinainte.
        loturi = [1, LOT_MAXIM, *rng.sample([n for n in range(2, LOT_MAXIM) if n != lot_exemplu], 3)]
        rng.shuffle(loturi)
        verificate = []
        for semn in (1, -1):
            for n in loturi:
                x = _intrare_cu_semn(referinta, n, semn, generator)
                asteptat = calcul_referinta(referinta, x)
                obtinut, eroare = _ruleaza_programul(modul_exportat, x.clone())
                if eroare is not None:
                    if _e_garda(eroare):
                        raise GresealaCursant(
                            f"Programul exportat din modulul tău refuză lotul {n} (garda `{_textul_garzii(eroare)}`), "
                            f"deși l-am exportat cu lotul dinamic (`Dim(\"lot\", max={LOT_MAXIM})`, loturile de la 1 la "
                            f"{LOT_MAXIM}): codul tău a fixat o mărime la valoarea din exemplu."
                        )
                    raise GresealaCursant(
                        f"Programul exportat din modulul tău s-a oprit cu o eroare la lotul {n}: "
                        + explica_exceptie(eroare, cine="Programul exportat")
                    )
                try:
                    compara_tensori(obtinut, asteptat, rtol=1e-4, atol=1e-5)
                except GresealaCursant:
                    raise GresealaCursant(_mesaj_ramura_1(raspuns, referinta, obtinut, asteptat, x, semn, n,
                                                          model_primit=model)) from None
                verificate.append(n)

        # 3. Parametrii modelului primit, nu o copie: schimb greutățile, modulul tău trebuie să le vadă.
        with torch.no_grad():
            for p in model.parameters():
                p.add_(torch.randn(p.shape, generator=generator) * 0.5)
        for semn in (1, -1):
            n = rng.randint(2, 9)
            x = _intrare_cu_semn(model, n, semn, generator)
            with torch.no_grad(), fara_jurnale_torch():
                obtinut = apeleaza(raspuns, x.clone(), limita_s=LIMITA_EXPORT_S,
                                   ce="modulul tău (rulat normal, după ce am schimbat greutățile modelului)")
            asteptat = calcul_referinta(model, x)
            if isinstance(obtinut, torch.Tensor) and obtinut.shape == asteptat.shape and torch.allclose(
                    obtinut, asteptat, rtol=1e-4, atol=1e-5):
                continue
            vechi = calcul_referinta(referinta, x)
            if isinstance(obtinut, torch.Tensor) and obtinut.shape == vechi.shape and torch.allclose(
                    obtinut, vechi, rtol=1e-4, atol=1e-5):
                raise GresealaCursant(
                    "După ce am schimbat greutățile modelului primit, modulul tău dă tot ce dădea înainte: lucrează "
                    "cu o copie a greutăților (`copy.deepcopy`, `load_state_dict`, `.clone()`), nu cu parametrii "
                    "modelului. Exercițiul cere un modul care folosește chiar parametrii lui `model` (de exemplu, "
                    "`self.liniar = model.liniar`): așa, orice antrenare sau încărcare de greutăți în model se vede "
                    "și în modulul tău, iar exportul lui duce greutățile adevărate."
                )
            compara_tensori(obtinut, asteptat, "modulul tău rulat normal, după ce am schimbat greutățile modelului",
                            rtol=1e-4, atol=1e-5)

        sortate = sorted(set(verificate))
        loturi_text = ", ".join(str(n) for n in sortate[:-1]) + f" și {sortate[-1]}"
        return (
            f"Modulul tău se exportă o singură dată, cu lotul dinamic, fără întrerupere: alegerea ramurii e în graf. "
            f"Programul exportat dă ce dă modelul original pe ambele ramuri (`h.sum() > 0` și `h.sum() ≤ 0`), pe "
            f"loturile {loturi_text}, iar modulul folosește chiar parametrii modelului primit."
        )

    return verificare("Exercițiul 1", corp, limita_s=240.0)


def _marime_simbolica(eroare: BaseException) -> bool:
    """Adevărat dacă mesajul excepției (sau al celor din care provine) pomenește o mărime simbolică a
    exportului (`s77`, `2*s77`): o operație a căzut pe lotul dinamic."""
    vazute = set()
    while eroare is not None and id(eroare) not in vazute:
        vazute.add(id(eroare))
        if re.search(r"(?<![\w.])\d*\*?s\d+\b", str(eroare)):
            return True
        eroare = eroare.__cause__ or eroare.__context__
    return False


def _din_modelul_original(eroare: BaseException) -> bool:
    """Adevărat dacă exportul s-a oprit în `ModelCuRamura.forward` (modulul cursantului cheamă modelul
    original)."""
    cod = ModelCuRamura.forward.__code__
    while eroare is not None:
        tb = eroare.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is cod:
                return True
            tb = tb.tb_next
        eroare = eroare.__cause__ or eroare.__context__
    return False


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: formele dinamice, declarate
# ---------------------------------------------------------------------------------------------

_NUME_DIMENSIUNI = {0: "lotul", 1: "lungimea"}
_CUM_ARATA = (
    "`dynamic_shapes` urmează argumentele lui `forward`: un dicționar cu numele argumentului, aici "
    "`{\"intrari\": …}`, sau un tuplu cu câte un element pentru fiecare argument, `(…,)`. Pentru tensorul "
    "`intrari` (lot × lungime), elementul e un dicționar {indicele dimensiunii: dimensiunea}, de exemplu "
    "`{0: Dim(\"lot\", min=1, max=64), 1: Dim(\"lungime\", min=2, max=lungime_maxima)}`, sau o listă cu câte o "
    "intrare pentru fiecare dimensiune. O dimensiune e un `torch.export.Dim`, `Dim.AUTO`, `Dim.DYNAMIC` sau None "
    "(statică)."
)


def _e_dimensiune(valoare) -> bool:
    if valoare is None or (isinstance(valoare, int) and not isinstance(valoare, bool)):
        return True
    return type(valoare).__module__.startswith("torch.export")


def _problema_structurii(forme) -> str | None:
    """Ce nu e în regulă cu structura lui `dynamic_shapes` pentru `ReteaTransformer.forward(intrari)`,
    cu un tensor de două dimensiuni; None dacă structura e bună (sau e una pe care o judecă exportul)."""
    if forme is None:
        return None
    if isinstance(forme, dict):
        chei = list(forme)
        if chei != ["intrari"]:
            return (f"Dicționarul tău are cheile {chei}, dar `ReteaTransformer.forward` are un singur argument, "
                    f"`intrari`: cheia trebuie să fie numele lui. {_CUM_ARATA}")
        interior = forme["intrari"]
    elif isinstance(forme, (tuple, list)):
        if len(forme) != 1:
            if len(forme) == 2 and all(_e_dimensiune(d) for d in forme):
                return ("Ai întors direct dimensiunile tensorului, fără nivelul argumentelor: modelul are un singur "
                        f"argument, deci tuplul de sus are un singur element, `({{0: …, 1: …}},)`. {_CUM_ARATA}")
            return (f"Tuplul tău are {cu_substantiv(len(forme), 'element', 'elemente')}, dar `forward` are un singur "
                    "argument, `intrari`. "
                    f"{_CUM_ARATA}")
        interior = forme[0]
    elif type(forme).__name__ == "ShapesCollection":
        return None
    else:
        return f"Ai întors {type(forme).__name__}, nu o descriere a formelor. {_CUM_ARATA}"
    if interior is None:
        return None
    if isinstance(interior, dict):
        for cheie, valoare in interior.items():
            if isinstance(cheie, bool) or not isinstance(cheie, int) or cheie not in (0, 1, -1, -2):
                return (f"Pentru `intrari` ai pus cheia {cheie!r}, dar tensorul are două dimensiuni: cheile sunt "
                        f"indicii lor, 0 (lotul) și 1 (lungimea). {_CUM_ARATA}")
            if not _e_dimensiune(valoare):
                return (f"Pentru dimensiunea {cheie} ai pus {type(valoare).__name__} ({valoare!r}), nu o dimensiune. "
                        f"{_CUM_ARATA}")
        return None
    if isinstance(interior, (tuple, list)):
        if len(interior) != 2:
            return (f"Pentru `intrari` ai dat o listă cu {cu_substantiv(len(interior), 'element', 'elemente')}, dar "
                    "tensorul are două dimensiuni "
                    f"(lot × lungime). {_CUM_ARATA}")
        for indice, valoare in enumerate(interior):
            if not _e_dimensiune(valoare):
                return (f"Pentru dimensiunea {indice} ai pus {type(valoare).__name__} ({valoare!r}), nu o dimensiune. "
                        f"{_CUM_ARATA}")
        return None
    if _e_dimensiune(interior):
        return ("Pentru `intrari` ai dat o singură dimensiune, dar tensorul are două (lot × lungime): dă un "
                f"dicționar sau o listă cu câte una pentru fiecare. {_CUM_ARATA}")
    return f"Pentru `intrari` ai dat {type(interior).__name__}. {_CUM_ARATA}"


def _mesaj_export_esuat_2(eroare: BaseException, forma_exemplu: tuple) -> str:
    mesaj = _mesaj_refuz_export(eroare, "modelului, cu formele tale,")
    if mesaj is not None:
        return mesaj
    text = " ".join(str(eroare).split())
    afara = re.search(r"(\d+) not in range \[(-?\d+), (\S+?)\]", text)
    if afara:
        return (f"Exportul a fost refuzat: forma exemplului, {forma_exemplu}, iese din intervalul declarat de tine "
                f"({afara.group(1)} nu e între {afara.group(2)} și {afara.group(3)}). Exemplul cu care exporți trebuie "
                f"să fie una dintre formele permise; lotul trebuie să poată fi de la 1 la {LOT_MAXIM}, lungimea de "
                f"la 2 la lungimea maximă.{cu_originalul(eroare)}")
    static = re.search(r"Static shape constraint of (\d+) does not match input size of (\d+)", text)
    if static:
        return (f"Exportul a fost refuzat: un număr întreg în `dynamic_shapes` ({static.group(1)}) înseamnă o "
                "dimensiune statică, fixată la acel număr, iar exemplul are altă mărime acolo "
                f"({static.group(2)}). Pentru o dimensiune dinamică folosește `torch.export.Dim(nume, min=…, max=…)`: "
                f"marginile se dau ca argumente, nu ca număr.{cu_originalul(eroare)}")
    if "is not equal to" in text:
        return ("Exportul a fost refuzat: ai folosit același `Dim` pentru lot și pentru lungime, iar asta îi spune "
                "exportului că cele două dimensiuni sunt mereu egale; exemplul le are diferite. Dă fiecărei "
                f"dimensiuni `Dim`-ul ei, cu numele lui.{cu_originalul(eroare)}")
    if type(eroare).__name__ == "UserError" or "dynamic_shapes" in text:
        return f"Exportul a refuzat descrierea formelor. {_CUM_ARATA}{cu_originalul(eroare)}"
    return "Exportul a fost refuzat: " + explica_exceptie(eroare, cine="Exportul")


def _explica_garda_2(eroare: BaseException, forma: tuple, forma_exemplu: tuple) -> str:
    garda = _garda_dimensiunii(eroare)
    text_garda = f"garda `{_textul_garzii(eroare)}`"
    if garda is None:
        return f"{text_garda}."
    dim, relatie, valoare = garda
    nume = _NUME_DIMENSIUNI.get(dim, f"dimensiunea {dim}")
    if relatie == "==":
        fixat = "fixată" if dim == 1 else "fixat"
        return (f"{text_garda}: {nume} (dimensiunea {dim}) a rămas {fixat} la {valoare}, mărimea din exemplul "
                f"{forma_exemplu}. O dimensiune pe care n-o declari dinamică rămâne statică: programul exportat "
                "primește doar mărimea cu care l-ai exportat, iar pentru alta ar trebui un export nou.")
    if relatie == "<=":
        return (f"{text_garda}: ai declarat pentru {nume} (dimensiunea {dim}) maximul {valoare}, prea mic pentru "
                f"forma {forma}.")
    return (f"{text_garda}: ai declarat pentru {nume} (dimensiunea {dim}) minimul {valoare}, prea mare pentru "
            f"forma {forma}.")


def _model_2(rng) -> tuple[ReteaTransformer, int]:
    lungime = rng.randint(8, 24)
    configuratie = ConfiguratieTransformer(vocabular=rng.randint(32, 96), dim_model=rng.choice((8, 16)),
                                          nr_capete=2, nr_straturi=1, lungime=lungime, marime_lot=4)
    with torch.random.fork_rng():
        torch.manual_seed(rng.randrange(2**31))
        model = ReteaTransformer(configuratie).eval()
    return model, lungime


def _forma_exemplu_2(rng, lungime_maxima: int) -> tuple[int, int]:
    """Forma exemplului cu care se exportă (lot × lungime), cu lotul diferit de lungime în fiecare rulare: un
    singur `Dim` pus pe amândouă dimensiunile e atunci refuzat chiar de export, cu explicația lui, nu abia
    de o formă oarecare, după sămânță."""
    lot = rng.randint(2, 8)
    lungime = rng.randint(2, lungime_maxima - 1)
    while lungime == lot:
        lungime = rng.randint(2, lungime_maxima - 1)
    return lot, lungime


def exercitiul_2(forme_dinamice) -> Rezultat:
    """Verifică `forme_dinamice(lungime_maxima)`: primește lungimea maximă a unui `ReteaTransformer`
    mic (mărimi alese la întâmplare; înglobarea pozițiilor are `lungime_maxima` rânduri) și întoarce
    `dynamic_shapes` pentru `torch.export.export(model, (intrari,), dynamic_shapes=...)`. Cu un
    singur export (exemplul: o formă aleasă la întâmplare), programul exportat trebuie să ruleze
    formele de la margini, (1, 2), (64, maxim), (1, maxim), (64, 2), și altele alese la întâmplare,
    cu aceeași ieșire ca modelul, și să refuze singur, la intrare, lotul 65 și lungimea maxim + 1."""

    def corp():
        _cere_functie(forme_dinamice, "forme_dinamice(lungime_maxima)")
        rng = generator_aleator()
        model, lungime_maxima = _model_2(rng)
        vocabular = model.configuratie.vocabular
        generator = _cu_seminta(rng)
        forme = apeleaza(forme_dinamice, lungime_maxima, limita_s=LIMITA_EXPORT_S, ce="funcția ta `forme_dinamice`")
        problema = _problema_structurii(forme)
        if problema:
            raise GresealaCursant(problema)

        forma_exemplu = _forma_exemplu_2(rng, lungime_maxima)
        exemplu = torch.randint(vocabular, forma_exemplu, generator=generator)
        try:
            with fara_jurnale_torch(), limita_timp(LIMITA_EXPORT_S, "exportul modelului"):
                program = torch.export.export(model, (exemplu,), strict=False, dynamic_shapes=forme)
        except GresealaCursant:
            raise
        except Exception as eroare:  # formele tale, refuzate de export
            raise GresealaCursant(_mesaj_export_esuat_2(eroare, forma_exemplu)) from None
        modul = program.module()

        aleatoare = {(rng.randint(1, LOT_MAXIM), rng.randint(2, lungime_maxima)) for _ in range(4)}
        margini = [(1, 2), (LOT_MAXIM, lungime_maxima), (1, lungime_maxima), (LOT_MAXIM, 2)]
        de_rulat = [forma_exemplu, *margini, *sorted(aleatoare - set(margini) - {forma_exemplu})]
        for rulate, forma in enumerate(de_rulat):
            x = torch.randint(vocabular, forma, generator=generator)
            obtinut, eroare = _ruleaza_programul(modul, x)
            if eroare is not None:
                if _e_garda(eroare):
                    rulate = ("" if rulate == 0 else f" (Exemplul, {forma_exemplu}, a rulat.)" if rulate == 1 else
                              f" (Au rulat {cu_substantiv(rulate, 'formă', 'forme')} înaintea ei, începând cu exemplul, "
                              f"{forma_exemplu}.)")
                    raise GresealaCursant(
                        f"Programul exportat a refuzat forma {forma} (lot × lungime), una dintre cele care trebuie să "
                        f"ruleze: {_explica_garda_2(eroare, forma, forma_exemplu)}{rulate}"
                    )
                raise GresealaCursant(f"Programul exportat s-a oprit la forma {forma}: "
                                      + explica_exceptie(eroare, cine="Programul exportat"))
            with torch.no_grad():
                asteptat = model(x)
            compara_tensori(obtinut, asteptat, f"programul exportat, forma {forma}", rtol=1e-4, atol=1e-5)

        # Ce trebuie refuzat, la intrare (de garda programului), nu de o eroare din mijlocul modelului.
        lungime = rng.randint(2, lungime_maxima)
        lot = rng.randint(1, LOT_MAXIM)
        for forma, nume in (((LOT_MAXIM + 1, lungime), "lotul"), ((lot, lungime_maxima + 1), "lungimea")):
            x = torch.randint(vocabular, forma, generator=generator)
            _, eroare = _ruleaza_programul(modul, x)
            if eroare is not None and _e_garda(eroare):
                continue
            if nume == "lotul":
                if eroare is None:
                    raise GresealaCursant(
                        f"Programul exportat a rulat și forma {forma}, cu lotul {LOT_MAXIM + 1}, pe care trebuia s-o "
                        f"refuze: lotul tău n-are maxim (`Dim.AUTO`, `Dim.DYNAMIC` sau `Dim` fără `max`) sau are unul "
                        f"peste {LOT_MAXIM}. Declară-l: `Dim(\"lot\", min=1, max={LOT_MAXIM})`. Programul exportat "
                        "verifică singur, la intrare, intervalul declarat."
                    )
                raise GresealaCursant(f"Forma {forma} trebuia refuzată de garda programului exportat, la intrare, dar "
                                      "programul a pornit și s-a oprit cu o eroare: "
                                      + explica_exceptie(eroare, cine="Programul exportat"))
            cum = ("a rulat-o" if eroare is None else
                   f"a primit-o și s-a oprit abia în model, cu {type(eroare).__name__} "
                   f"(„{' '.join(str(eroare).split())[:80]}”)")
            raise GresealaCursant(
                f"Lungimea {lungime_maxima + 1} (forma {forma}) trebuia refuzată la intrare, dar programul exportat {cum}: "
                f"înglobarea pozițiilor (`model.pozitii`) are doar {cu_substantiv(lungime_maxima, 'rând', 'rânduri')}, iar exportul nu deduce "
                "această limită din cod. Declar-o tu: `Dim(\"lungime\", min=2, max=lungime_maxima)`; atunci programul "
                "verifică lungimea la intrare și refuză o formă prea lungă cu un mesaj clar, înainte să ruleze modelul."
            )

        return (
            f"Un singur export rulează loturile de la 1 la {LOT_MAXIM} și lungimile de la 2 la {lungime_maxima}: am "
            f"încercat {cu_substantiv(len(de_rulat), 'formă', 'forme')}, cu marginile, fiecare cu aceeași ieșire ca modelul. "
            f"Lotul {LOT_MAXIM + 1} și lungimea {lungime_maxima + 1} sunt refuzate de programul exportat, la intrare, "
            "înainte să ruleze modelul."
        )

    return verificare("Exercițiul 2", corp, limita_s=180.0)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: pachetul AOTInductor, încărcat într-un proces nou
# ---------------------------------------------------------------------------------------------

#: Scriptul procesului nou: încarcă pachetul cu `aoti_load_package` și îl rulează pe fiecare intrare.
#: Cu `AOTI_RUNTIME_CHECK_INPUTS=1`, pachetul verifică formele intrărilor (fără, un pachet cu lotul
#: fixat primește orice lot, fără eroare, și dă valori greșite: măsurat pe torch 2.14.1, pe procesor).
_SCRIPT_PROCES_NOU = r"""
import os, signal, sys, warnings
warnings.simplefilter("ignore")
import torch
pachet, cale_intrari, cale_rezultate = sys.argv[1:4]
rezultat = {"incarcare": None, "iesiri": []}
if os.environ.get("CURS_AOTI_ESEC_SIMULAT", "").strip():  # oprirea la încărcare, simulată ca în capitol
    os.kill(os.getpid(), signal.SIGSEGV)
try:
    model = torch._inductor.aoti_load_package(pachet)
except Exception as e:
    rezultat["incarcare"] = type(e).__name__ + ": " + str(e)
else:
    print("INCARCAT", flush=True)
    for x in torch.load(cale_intrari):
        try:
            with torch.no_grad():
                y = model(x)
            rezultat["iesiri"].append(("bun", y))
        except Exception as e:
            rezultat["iesiri"].append(("eroare", type(e).__name__ + ": " + str(e)))
torch.save(rezultat, cale_rezultate)
"""


def _model_3(rng) -> tuple[nn.Module, int]:
    intrare, ascuns, iesire = rng.randint(4, 16), rng.randint(8, 32), rng.randint(2, 8)
    with torch.random.fork_rng():
        torch.manual_seed(rng.randrange(2**31))
        model = nn.Sequential(nn.Linear(intrare, ascuns), nn.GELU(), nn.Linear(ascuns, iesire)).eval()
    return model, intrare


def _felul_fisierului(cale: Path) -> str:
    """„aoti” (pachet AOTInductor), „export” (program exportat, `torch.export.save`), „pickle”
    (`torch.save`), „so” (o bibliotecă), „zip” (altă arhivă) sau „altceva”."""
    if not zipfile.is_zipfile(cale):
        with open(cale, "rb") as f:
            return "so" if f.read(4) == b"\x7fELF" else "altceva"
    with zipfile.ZipFile(cale) as arhiva:
        nume = arhiva.namelist()
    if any("data/aotinductor/" in n for n in nume):
        return "aoti"
    if any(n.endswith(("models/model.json", "serialized_exported_program.json")) or "/models/" in n for n in nume):
        return "export"
    if any(n.endswith("data.pkl") for n in nume):
        return "pickle"
    return "zip"


_NU_E_AOTI = {
    "export": (
        "un program exportat (`torch.export.save`), nu un pachet AOTInductor. Programul exportat e graful și "
        "greutățile: îl încarci cu `torch.export.load` și rulează tot prin Python, operație cu operație. Pachetul "
        "AOTInductor conține graful deja compilat în cod nativ (o bibliotecă `.so` în arhivă), pe care îl încarcă "
        "`aoti_load_package` sau un program C++, fără Python. Compilează programul exportat: "
        "`torch._inductor.aoti_compile_and_package(program, package_path=...)`."
    ),
    "pickle": (
        "un fișier scris cu `torch.save` (modelul sau greutățile lui, cu pickle): se încarcă doar cu Python și cu "
        "clasa modelului definită, iar modelul rulează tot în modul eager. Exercițiul cere un pachet AOTInductor: "
        "exportă (`torch.export.export`), apoi compilează (`torch._inductor.aoti_compile_and_package`)."
    ),
    "so": (
        "o bibliotecă `.so`, nu un pachet `.pt2`: așa scria API-ul vechi (`torch._export.aot_compile`). Pachetul "
        "`.pt2` pune biblioteca împreună cu ce trebuie ca s-o încarci; scrie-l cu "
        "`torch._inductor.aoti_compile_and_package(program, package_path=...)`."
    ),
    "zip": (
        "o arhivă zip, dar nu un pachet AOTInductor (nu are dosarul `data/aotinductor/` cu modelul compilat). "
        "Scrie-l cu `torch._inductor.aoti_compile_and_package(program, package_path=...)`."
    ),
    "altceva": (
        "un fișier care nu e un pachet AOTInductor (un pachet `.pt2` e o arhivă zip, cu modelul compilat în "
        "`data/aotinductor/`). Scrie-l cu `torch._inductor.aoti_compile_and_package(program, package_path=...)`."
    ),
}


def _cale_pachet(cale, dosar: Path) -> Path:
    """Calea întoarsă de cursant, verificată: un fișier care există, în `dosar`."""
    if cale is None:
        raise GresealaCursant("`impacheteaza` a întors None: ai uitat `return`? Trebuia să întorci calea pachetului "
                              "`.pt2` (cea întoarsă de `aoti_compile_and_package`).")
    if not isinstance(cale, (str, os.PathLike)):
        raise GresealaCursant(f"`impacheteaza` a întors {type(cale).__name__}, nu o cale: întoarce calea fișierului "
                              "`.pt2` (un `str` sau un `pathlib.Path`).")
    cale = Path(os.fspath(cale)).expanduser()
    if not cale.is_absolute():
        cale = Path.cwd() / cale
    cale = cale.resolve()
    in_dosar = cale == dosar or dosar in cale.parents
    if not cale.exists():
        scrise = sorted(p.name for p in dosar.rglob("*") if p.is_file())
        if in_dosar and not scrise:
            raise GresealaCursant(f"Calea întoarsă, `{cale.name}`, nu există, iar dosarul e gol: funcția ta n-a scris "
                                  "nimic. Scrie pachetul (`aoti_compile_and_package(program, package_path=...)`) și "
                                  "întoarce calea lui.")
        if in_dosar:
            raise GresealaCursant(f"Calea întoarsă, `{cale.name}`, nu există; în dosar ai scris {', '.join(scrise[:5])}. "
                                  "Întoarce calea pachetului, exact cea dată lui `package_path`.")
        raise GresealaCursant(f"Calea întoarsă, `{cale}`, nu există. Pachetul trebuie scris în dosarul primit, `dosar`.")
    if cale.is_dir():
        raise GresealaCursant("Ai întors un dosar, nu un fișier: întoarce calea pachetului `.pt2` (de exemplu, "
                              "`os.path.join(dosar, \"model.pt2\")`, cea dată lui `package_path`).")
    if not in_dosar:
        raise GresealaCursant(
            f"Pachetul întors, `{cale}`, nu e în dosarul primit (`dosar`): exercițiul cere un pachet nou, scris acum "
            "în `dosar`, din modelul primit, nu unul făcut înainte (de exemplu, în secțiunile capitolului). "
            "Verificarea nu construiește niciun pachet de referință: compară ce dă pachetul tău cu modelul, rulat "
            "normal."
        )
    return cale


def _explica_aoti(text: str, lot_exemplu: int) -> str:
    """O eroare a pachetului la rulare (cu verificarea intrărilor), spusă în română."""
    fixat = re.search(r"unmatched dim value at (\d+), expected: (\d+), but got: (\d+)", text)
    if fixat:
        dim, asteptat, primit = fixat.groups()
        if dim == "0" and int(asteptat) != lot_exemplu:
            return (f"pachetul are lotul fixat la {asteptat}, care nici măcar nu e lotul exemplului primit "
                    f"({lot_exemplu}): e un pachet făcut altundeva, dintr-o altă intrare (un pachet vechi?), cu lotul "
                    "fixat. Exportă chiar modelul primit, pe exemplul primit, cu lotul dinamic: "
                    "`dynamic_shapes=({0: Dim(\"lot\", max=64)},)`.")
        if dim == "0":
            return (f"pachetul are lotul fixat la {asteptat} (lotul exemplului) și refuză lotul {primit}. Fără "
                    "`dynamic_shapes`, exportul fixează fiecare dimensiune la mărimea din exemplu, iar AOTInductor "
                    "compilează codul pentru exact acea formă. Declară lotul dinamic la export: "
                    "`dynamic_shapes={\"input\": {0: Dim(\"lot\", max=64)}}` (cheia e numele argumentului lui "
                    "`forward`; pentru un `nn.Sequential`, `input`) sau `({0: Dim(\"lot\", max=64)},)`.")
        return (f"pachetul cere mărimea {asteptat} pe dimensiunea {dim} a intrării, iar intrarea modelului primit are "
                f"{primit}: e pachetul altui model. Exportă chiar modelul primit.")
    interval = re.search(r"dim value is too (small|large) at (\d+), expected (?:it )?to be (>=|<=) (\d+), but got: (\d+)",
                         text)
    if interval:
        _, dim, relatie, limita, primit = interval.groups()
        if relatie == ">=":
            return (f"pachetul refuză lotul {primit}: la export ai declarat pentru dimensiunea {dim} minimul {limita}. "
                    f"Verificarea încearcă loturile de la {LOT_MINIM_3} la {LOT_MAXIM_3}, cu amândouă marginile (pe lângă "
                    f"lotul exemplului, {lot_exemplu}): minimul lotului trebuie să fie cel mult {LOT_MINIM_3}. Lasă-l "
                    "implicit: `Dim(\"lot\", max=64)`.")
        return (f"pachetul refuză lotul {primit}: la export ai declarat pentru dimensiunea {dim} maximul {limita}. "
                f"Verificarea încearcă loturile de la {LOT_MINIM_3} la {LOT_MAXIM_3}, cu amândouă marginile (pe lângă "
                f"lotul exemplului, {lot_exemplu}): maximul lotului trebuie să fie cel puțin {LOT_MAXIM_3}, de exemplu "
                "`Dim(\"lot\", max=64)`.")
    tip = re.search(r"unmatched dtype, expected: (\d+)\(at::k(\w+)\), but got: (\d+)", text)
    if tip:
        asteptat = _TIPURI_ATEN.get(tip.group(2), tip.group(2))
        primit = _TIPURI_ATEN.get(_CODURI_ATEN.get(int(tip.group(3)), ""), f"tipul cu codul {tip.group(3)}")
        return (f"pachetul cere intrări {asteptat}, iar modelul primit lucrează cu {primit}: ai convertit modelul sau "
                "exemplul (`.double()`, `.half()`) înainte de export. AOTInductor compilează codul pentru tipul de date "
                "din export; exportă chiar modelul primit, cu exemplul primit, fără conversii.")
    return f"pachetul s-a oprit cu o eroare pe care verificarea n-o recunoaște.{cu_originalul(text)}"


#: Numele tipurilor de date din mesajele lui AOTInductor („at::kDouble”) și codurile lor numerice.
_TIPURI_ATEN = {"Float": "torch.float32", "Double": "torch.float64", "Half": "torch.float16",
                "BFloat16": "torch.bfloat16", "Long": "torch.int64", "Int": "torch.int32", "Bool": "torch.bool"}
_CODURI_ATEN = {3: "Int", 4: "Long", 5: "Half", 6: "Float", 7: "Double", 11: "Bool", 15: "BFloat16"}


def _loturi_3(rng, lot_exemplu: int) -> list[int]:
    """Loturile pe care rulează pachetul în procesul nou: lotul exemplului, marginile intervalului cerut
    (`LOT_MINIM_3` și `LOT_MAXIM_3`, în fiecare rulare: un `Dim` cu minimul sau maximul greșit cade pe ele) și,
    până la cinci loturi, altele dintre ele, alese la întâmplare."""
    margini = [n for n in (LOT_MINIM_3, LOT_MAXIM_3) if n != lot_exemplu]
    altele = rng.sample([n for n in range(LOT_MINIM_3 + 1, LOT_MAXIM_3) if n != lot_exemplu], 4 - len(margini))
    return [lot_exemplu, *margini, *altele]


def _cere_intervalul_3(loturi: list[int], iesiri: list, lot_exemplu: int) -> None:
    """Loturile refuzate de pachet pentru că ies din intervalul declarat la export, spuse toate odată: un
    minim prea mare și un maxim prea mic se văd amândouă, pe marginile intervalului cerut."""
    refuzate = []
    for n, (fel, valoare) in zip(loturi, iesiri):
        potrivire = re.search(r"dim value is too (?:small|large) at 0, expected (?:it )?to be (>=|<=) (\d+)", str(valoare))
        if fel == "eroare" and potrivire:
            refuzate.append((n, potrivire.group(1), int(potrivire.group(2))))
    if not refuzate:
        return
    parti, sfaturi = [], []
    for relatie, nume, sfat in ((">=", "minimul", f"minimul lotului trebuie să fie cel mult {LOT_MINIM_3}"),
                                ("<=", "maximul", f"maximul lotului trebuie să fie cel puțin {LOT_MAXIM_3}")):
        aici = sorted(n for n, r, _ in refuzate if r == relatie)
        if aici:
            limita = next(l for _, r, l in refuzate if r == relatie)
            parti.append(f"{'lotul' if len(aici) == 1 else 'loturile'} {', '.join(map(str, aici))} (ai declarat la "
                         f"export {nume} {limita})")
            sfaturi.append(sfat)
    raise GresealaCursant(
        f"În procesul nou, pachetul tău refuză {' și '.join(parti)}. Verificarea încearcă loturile de la "
        f"{LOT_MINIM_3} la {LOT_MAXIM_3}, cu amândouă marginile, pe lângă lotul exemplului ({lot_exemplu}): "
        f"{' și '.join(sfaturi)}. Lasă minimul implicit și pune un maxim larg: `Dim(\"lot\", max=64)`."
    )


def _ruleaza_in_proces_nou(cale: Path, intrari: list[torch.Tensor]) -> tuple[dict, float]:
    """Încarcă pachetul într-un proces Python nou și îl rulează pe `intrari`; întoarce ce a dat
    procesul și cât a durat."""
    with tempfile.TemporaryDirectory(prefix="curs09_proces_") as lucru:
        cale_intrari, cale_rezultate = Path(lucru) / "intrari.pt", Path(lucru) / "rezultate.pt"
        torch.save(intrari, cale_intrari)
        mediu = {**os.environ, "AOTI_RUNTIME_CHECK_INPUTS": "1", "PYTHONWARNINGS": "ignore"}
        inceput = time.perf_counter()
        try:
            proces = subprocess.run([sys.executable, "-c", _SCRIPT_PROCES_NOU, str(cale), str(cale_intrari),
                                     str(cale_rezultate)], capture_output=True, text=True, env=mediu,
                                    timeout=LIMITA_PROCES_NOU_S, cwd=lucru)
        except subprocess.TimeoutExpired:
            raise GresealaCursant(
                f"Procesul nou n-a terminat în {format_timp(LIMITA_PROCES_NOU_S)} încărcarea și rularea pachetului tău; "
                "l-am oprit."
            ) from None
        secunde = time.perf_counter() - inceput
        if proces.returncode < 0 and "INCARCAT" not in proces.stdout:
            import signal

            try:
                semnal = signal.Signals(-proces.returncode).name
            except ValueError:
                semnal = f"semnalul {-proces.returncode}"
            raise MasinaNepotrivita(
                f"Nu-ți pot verifica pachetul pe mașina asta: procesul nou s-a oprit cu {semnal} chiar la încărcare "
                f"(`aoti_load_package`), înainte de orice apel, pe torch {torch.__version__}. Nu e o greșeală a ta: pe "
                "unele combinații de versiuni (torch, compilatorul C++, bibliotecile sistemului), încărcarea oricărui "
                "pachet AOTInductor oprește procesul; proba din secțiunea 4 a capitolului spune dacă mașina ta e una "
                "dintre ele. Încearcă exercițiul pe altă mașină (de exemplu pe procesor, fără GPU)."
            )
        if proces.returncode != 0 or not cale_rezultate.is_file():
            ultimele = [r for r in (proces.stderr or proces.stdout).strip().splitlines() if r.strip()][-3:]
            raise GresealaCursant(
                f"Procesul nou care încarcă pachetul tău s-a oprit cu codul {proces.returncode}, înainte să termine. "
                "Ultimele rânduri scrise de el:\n" + "\n".join(f"    {r[:200]}" for r in ultimele)
            )
        return torch.load(cale_rezultate, weights_only=False), secunde


def exercitiul_3(impacheteaza) -> Rezultat:
    """Verifică `impacheteaza(model, exemplu, dosar)`: primește un model mic (un `nn.Sequential`, cu
    lățimi alese la întâmplare), o intrare-exemplu (lot × intrare) și un dosar gol, creat de
    verificare, și întoarce calea unui pachet AOTInductor (`.pt2`) scris în acel dosar. Verificarea
    încarcă pachetul într-un proces Python nou (`aoti_load_package`, cu verificarea formelor
    intrărilor pornită), îl rulează pe lotul exemplului, pe marginile intervalului cerut (2 și 32) și pe
    alte două loturi dintre ele și compară cu modelul original rulat normal. Nu construiește niciun pachet
    de referință."""

    def corp():
        _cere_functie(impacheteaza, "impacheteaza(model, exemplu, dosar)")
        rng = generator_aleator()
        model, intrare = _model_3(rng)
        referinta = copy.deepcopy(model)
        generator = _cu_seminta(rng)
        lot_exemplu = rng.randint(2, 8)
        exemplu = torch.randn(lot_exemplu, intrare, generator=generator)
        dosar = Path(tempfile.mkdtemp(prefix="curs09_pachet_")).resolve()
        try:
            try:
                with fara_jurnale_torch():
                    cale = apeleaza(impacheteaza, model, exemplu.clone(), str(dosar), limita_s=LIMITA_IMPACHETARE_S,
                                    ce="funcția ta `impacheteaza`")
            except GresealaCursant as greseala:
                afara = re.search(r"(\d+) not in range \[(-?\d+), (\S+?)\]", str(greseala.exceptie or ""))
                if afara is None:
                    raise
                raise GresealaCursant(
                    f"Exportul a refuzat exemplul primit: lotul lui, {afara.group(1)}, nu e în intervalul declarat de "
                    f"tine pentru lot, [{afara.group(2)}, {afara.group(3)}]. Pachetul trebuie să primească loturile de la "
                    f"{LOT_MINIM_3} la {LOT_MAXIM_3} (și lotul exemplului, de la 2 la 8): lasă minimul implicit și pune "
                    f"un maxim de cel puțin {LOT_MAXIM_3}, de exemplu `Dim(\"lot\", max=64)`."
                    f"{cu_originalul(traduce_exceptie(greseala.exceptie))}"
                ) from None
            cale = _cale_pachet(cale, dosar)
            fel = _felul_fisierului(cale)
            if fel != "aoti":
                raise GresealaCursant(f"Fișierul întors, `{cale.name}`, e {_NU_E_AOTI[fel]}")
            loturi = _loturi_3(rng, lot_exemplu)
            intrari = [exemplu.clone(), *(torch.randn(n, intrare, generator=generator) for n in loturi[1:])]
            rezultat, secunde = _ruleaza_in_proces_nou(cale, intrari)
            marime = cale.stat().st_size
        finally:
            shutil.rmtree(dosar, ignore_errors=True)

        if rezultat["incarcare"] is not None:
            raise GresealaCursant(
                f"Procesul nou n-a putut încărca pachetul cu `torch._inductor.aoti_load_package`."
                f"{cu_originalul(rezultat['incarcare'])} Scrie pachetul cu `torch._inductor.aoti_compile_and_package`."
            )
        _cere_intervalul_3(loturi, rezultat["iesiri"], lot_exemplu)
        for indice, (n, x, (fel, valoare)) in enumerate(zip(loturi, intrari, rezultat["iesiri"])):
            unde = f"lotul exemplului ({n})" if indice == 0 else f"lotul {n}"
            if fel == "eroare":
                raise GresealaCursant(f"În procesul nou, pe {unde}, {_explica_aoti(valoare, lot_exemplu)}")
            with torch.no_grad():
                asteptat = referinta(x)
            if isinstance(valoare, (list, tuple)) and len(valoare) == 1:
                valoare = valoare[0]
            try:
                compara_tensori(valoare, asteptat, f"pachetul în procesul nou, {unde}", rtol=1e-4, atol=1e-5)
            except GresealaCursant as greseala:
                raise GresealaCursant(
                    f"{greseala} Pachetul nu calculează ce calculează modelul primit: e al altui model sau are alte "
                    "greutăți (ai schimbat modelul înainte să-l exporți, ai exportat o copie reinițializată, ai "
                    "refolosit un pachet vechi?). Exportă chiar modelul primit, neschimbat."
                ) from None

        alte = sorted(loturi[1:])
        loturi_text = ", ".join(str(n) for n in alte[:-1]) + f" și {alte[-1]}"
        return (
            f"Pachetul tău (`{cale.name}`, {format_octeti(marime)}) s-a încărcat într-un proces Python nou, fără "
            f"codul modelului, și a dat aceeași ieșire ca modelul pe lotul exemplului ({lot_exemplu}) și pe loturile "
            f"{loturi_text}: lotul e dinamic. Procesul, cu pornirea lui Python și încărcarea pachetului, a durat "
            f"{format_numar(secunde, 1)} s."
        )

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_IMPACHETARE_S + LIMITA_PROCES_NOU_S + 60.0)
