"""Concluziile tipărite din măsurători: o propoziție care urmează din propriile cifre.

O concluzie scrisă dinainte („compilatul e mai rapid”) poate fi contrazisă chiar de cifrele de
lângă ea: pe un procesor, pe tensori mici, varianta compilată iese uneori mai lentă. Aici
propoziția se alege după măsurătoare:

- rapoartele rundelor îl încadrează pe 1 (sau mediana lor se abate de la el cu cel mult 3%):
  „la fel, în limita zgomotului”;
- raportul e peste 1: „de X ori mai rapid”;
- raportul e sub 1: „mai lent”, cu o cauză probabilă pentru mașina ta, aleasă după ce se
  compară (o variantă compilată față de același cod eager, sau două variante de cod) și, dacă
  e dat, după numărul de grafuri; pentru două variante fără alt indiciu, fără cauză.

`contradictii(text)` caută în textul tipărit de un notebook propozițiile care se contrazic
singure („de 0,94 ori mai rapid”); testele o aplică ieșirii fiecărei celule.
"""

from __future__ import annotations

import re

from .cifre import cu_substantiv, cu_unitate, format_numar
from .masurare import Raport
from .mediu import profil_curent

__all__ = ["concluzie_accelerare", "cauza_lentorii", "CE_SE_COMPARA", "contradictii", "text_iesiri"]


#: Ce se compară, pentru cauza tipărită implicit (`cauza_lentorii`, `concluzie_accelerare`):
#: „compilat/eager”: varianta e forma compilată a aceluiași cod ca referința eager (costul fix
#: al apelului compilat e atunci o cauză probabilă); „variante”: două variante de cod (de
#: exemplu două trape de ieșire, amândouă compilate), despre care măsurătoarea nu spune de ce
#: una e mai lentă: fără cauză implicită, doar cea dată cu `cauza=` sau cea care reiese din
#: numărul de grafuri (`grafuri=`).
CE_SE_COMPARA = ("compilat/eager", "variante")


def cauza_lentorii(
    raport: Raport | None = None,
    pe_gpu: bool | None = None,
    *,
    ce_se_compara: str = "compilat/eager",
    grafuri: tuple[int, int] | None = None,
) -> str | None:
    """Cauza probabilă, pe mașina ta, pentru care varianta măsurată iese mai lentă decât
    referința, sau None când măsurătoarea nu o poate spune.

    - `ce_se_compara="compilat/eager"` (implicit): varianta e codul referinței, compilat; cauza
      e costul fix al apelului compilat (gărzile, învelișul codului generat), pe mașina ta;
    - `ce_se_compara="variante"`: două variante de cod; fără `grafuri`, None (nicio cauză
      inventată). Cu `grafuri=(ale_variantei, ale_referintei)`, cauza reiese din numărul lor:
      mai multe grafuri înseamnă întreruperi, fiecare cu gărzile și învelișul ei; mai puține
      sau tot atâtea înseamnă că nu de acolo vine diferența.

    `grafuri` se folosește la fel și pentru „compilat/eager”, când varianta compilată are
    întreruperi (referința eager are 0 grafuri: atunci cauza o spune)."""
    import torch

    if ce_se_compara not in CE_SE_COMPARA:
        raise ValueError(f"ce_se_compara trebuie să fie unul dintre {CE_SE_COMPARA}, nu {ce_se_compara!r}")
    if grafuri is not None:
        ale_variantei, ale_referintei = (int(g) for g in grafuri)
        if ce_se_compara == "compilat/eager" and ale_variantei > 1:
            return (
                f"varianta compilată se rupe în {cu_substantiv(ale_variantei, 'graf', 'grafuri')}: fiecare are "
                "gărzile, învelișul și lansările lui, iar între ele codul rulează eager"
            )
        if ce_se_compara == "variante":
            if ale_variantei > ale_referintei:
                return (
                    f"are {cu_substantiv(ale_variantei, 'graf', 'grafuri')}, față de {format_numar(ale_referintei)}: "
                    "fiecare graf în plus vine dintr-o întrerupere și are gărzile, învelișul și lansările lui"
                )
            return (
                f"diferența nu vine din grafuri în plus (are {cu_substantiv(ale_variantei, 'graf', 'grafuri')}, față "
                f"de {format_numar(ale_referintei)}), ci din ce rulează în graf sau lângă el, adică din felul în care "
                "rulează varianta însăși"
            )
    if ce_se_compara == "variante":
        return None
    if pe_gpu is None:
        pe_gpu = torch.cuda.is_available()
    if profil_curent() == "rapid":
        return (
            "în profilul rapid (cel al testelor), dimensiunile sunt minuscule, iar costul fix al unui "
            "apel compilat (gărzile lui Dynamo, învelișul Python al codului generat) cântărește mai mult "
            "decât ce câștigă fuziunea"
        )
    if not pe_gpu:
        return (
            "pe procesor, Inductor generează C++, iar operațiile eager ale PyTorch sunt deja vectorizate "
            "și împărțite pe nuclee; la dimensiuni mici, costul fix al apelului compilat (gărzile, "
            "învelișul codului generat) cântărește mai mult decât câștigul"
        )
    if raport is not None and getattr(raport, "limitare", "") == "echilibrat":
        return (
            "apelul e echilibrat: procesorul abia ține pasul cu GPU-ul, iar gărzile și învelișul codului "
            "compilat adaugă timp de procesor pe care GPU-ul îl așteaptă"
        )
    if raport is not None and raport.depinde_de_procesor:
        return (
            "apelul e limitat de procesor: gărzile și învelișul codului compilat costă mai mult decât "
            "lansările pe care le economisește fuziunea"
        )
    return "pe GPU-ul tău, la această formă, codul generat e mai lent decât kernel-urile bibliotecii"


#: Peste acest factor (sau sub inversul lui), o mediană nu mai e „practic la fel” cu 1, chiar dacă
#: rundele o încadrează pe 1: atunci verdictul spune că zgomotul decide.
PRAG_MEDIANA_DEPARTATA = 1.25
#: Peste acest raport între capetele rundelor (cel mai mare împărțit la cel mai mic), rundele sunt prea
#: împrăștiate ca „practic la fel” să fie o concluzie: se spune că zgomotul decide.
PRAG_IMPRASTIERE = 1.5


def concluzie_accelerare(
    raport: Raport,
    subiect: str = "Varianta compilată",
    referinta: str = "cea eager",
    feminin: bool = True,
    cauza: str | None = None,
    *,
    ce_se_compara: str = "compilat/eager",
    grafuri: tuple[int, int] | None = None,
) -> str:
    """Propoziția care urmează dintr-un raport de timpi `referinta / subiect` (de câte ori e
    mai rapid `subiect`): în zgomot, mai rapid sau mai lent. Propoziția începe cu `subiect`,
    scris cum e dat (cu majusculă, dacă e începutul frazei); `feminin` acordă adjectivele cu el.
    Intervalul din paranteză e cel după care s-a dat verdictul (`Raport.interval()`).

    Când `subiect` e mai lent, propoziția spune și cauza: `cauza`, dacă e dată; altfel cea pe
    care o poate spune `cauza_lentorii` despre ce se compară (`ce_se_compara`, `grafuri`). Pentru
    două variante de cod (`ce_se_compara="variante"`) fără `grafuri`, nu spune nicio cauză."""
    rapid = "rapidă" if feminin else "rapid"
    lent = "lentă" if feminin else "lent"
    if raport.in_zgomot:
        jos, sus = raport.capete_verdict
        imprastiate = jos > 0 and sus / jos > PRAG_IMPRASTIERE
        departe = not 1 / PRAG_MEDIANA_DEPARTATA <= raport.mediana <= PRAG_MEDIANA_DEPARTATA
        if jos <= 1.0 <= sus and (departe or imprastiate):
            # Rundele se împrăștie de o parte și de alta a lui 1, larg sau în jurul unei mediane departe de 1:
            # nici „la fel”, nici „mai rapid” nu urmează din cifre.
            return (
                f"Măsurătoarea nu dă un verdict pentru {subiect} față de {referinta}: mediana raportului e "
                f"{cu_unitate(raport.mediana, '×')}, dar rundele se împrăștie de o parte și de alta a lui 1 "
                f"({raport.interval()}); aici decide zgomotul. Rulează celula din nou, pe o mașină mai liniștită."
            )
        if jos <= 1.0 <= sus or raport.runde <= 1:
            motiv_zgomot = f"e în limita zgomotului măsurătorii ({raport.interval()})"
        else:
            # Rundele nu-l încadrează pe 1: verdictul vine din toleranța raportului.
            motiv_zgomot = (
                f"se abate de la 1 cu cel mult {format_numar(raport.toleranta * 100)}%, toleranța sub care "
                f"o diferență intră în zgomotul măsurătorii ({raport.interval()})"
            )
        return (
            f"{subiect} și {referinta} durează practic la fel: raportul lor, {cu_unitate(raport.mediana, '×')}, "
            f"{motiv_zgomot}."
        )
    if raport.mediana > 1:
        return f"{subiect} e de {_ori(raport.mediana)} mai {rapid} decât {referinta} ({raport.interval()})."
    motiv = cauza or cauza_lentorii(raport, ce_se_compara=ce_se_compara, grafuri=grafuri)
    text = (
        f"{subiect} e mai {lent} decât {referinta}: {cu_unitate(raport.mediana, '×')} ({raport.interval()}), "
        f"adică durează de {_ori(1 / raport.mediana)} mai mult."
    )
    return f"{text} Cauza probabilă, pe mașina ta: {motiv}." if motiv else text


def _ori(factor: float) -> str:
    """„2,5 ori”, „25 de ori”: factorul, rotunjit cum se scrie, urmat de „ori” (cu „de” unde
    îl cere româna)."""
    rotunjit = float(format_numar(factor).replace(" ", "").replace(",", "."))
    return cu_substantiv(rotunjit, "dată", "ori")


_NUMAR = r"(\d+(?:[.,]\d+)?)"
_COMPARATIV = r"mai\s+(?:rapid|lent|mult|mar|lung|scurt)\w*"
_TIPARE_CONTRADICTII = (
    # „de 0,94 ori mai rapid”: un factor „de X ori mai ...” are sens doar pentru X > 1
    re.compile(rf"de\s+{_NUMAR}\s+(?:de\s+)?ori\s+{_COMPARATIV}"),
    # „0,9× mai rapid”
    re.compile(rf"{_NUMAR}\s*×\s+{_COMPARATIV}"),
)


def contradictii(text: str) -> list[str]:
    """Fragmentele din `text` care se contrazic singure: un factor „de X ori mai …” sau
    „X× mai …” cu X ≤ 1 (de exemplu „de 0,94 ori mai rapid”)."""
    gasite = []
    for tipar in _TIPARE_CONTRADICTII:
        for potrivire in tipar.finditer(text):
            valoare = float(potrivire.group(1).replace(",", "."))
            if valoare <= 1:
                gasite.append(potrivire.group(0))
    return gasite


def text_iesiri(iesiri, doar_stdout: bool = False) -> str:
    """Textul tipărit în ieșirile unei celule de notebook (fluxurile și rezultatele text). Cu
    `doar_stdout=True`, fără fluxul de erori (stderr): acolo scriu PyTorch și bibliotecile lui
    (avertismente, tabelul reglării automate), în formatul lor, nu textul cursului."""
    bucati = []
    for iesire in iesiri or []:
        if iesire.get("output_type") == "stream":
            if doar_stdout and iesire.get("name") == "stderr":
                continue
            bucati.append(iesire.get("text", ""))
        elif "data" in iesire:
            bucati.append(iesire["data"].get("text/plain", ""))
    return "\n".join(bucati)
